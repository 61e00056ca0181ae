// A read-only mount (`--mount /PREFIX/=ro:FOLDER`, SPEC §13): reads, searches and stat pass
// through; every write, edit, delete and upload is refused without touching the folder.
// (policy-wrapper.ts would word the refusal as a blocked policy and run hooks' machinery on
// every read; a mount that cannot be written says just that.)

import type { Backend, DeleteResult, EditResult, FileUpload, FileUploadResponse, WriteResult } from '../protocol';

/** The refusal, for a path inside the mount (the composite puts the prefix back on it). */
export function readOnlyError(path: string): string {
  return `'${path}' is on a read-only mount`;
}

export function readOnlyBackend(inner: Backend): Backend {
  const refuse = async (path: string): Promise<WriteResult & EditResult & DeleteResult> => ({ error: readOnlyError(path) });
  return {
    ls: (path) => inner.ls(path),
    read: (path, offset, limit) => inner.read(path, offset, limit),
    readRaw: (path) => inner.readRaw(path),
    write: (path) => refuse(path),
    edit: (path) => refuse(path),
    delete: (path) => refuse(path),
    grep: (pattern, path, glob, maxCount) => inner.grep(pattern, path, glob, maxCount),
    glob: (pattern, path) => inner.glob(pattern, path),
    stat: (path) => inner.stat(path),
    uploadFiles: async (files: FileUpload[]): Promise<FileUploadResponse[]> => files.map((f) => ({ path: f.path, error: 'permission_denied' })),
    downloadFiles: (paths) => inner.downloadFiles(paths),
    ...(inner.linkTarget ? { linkTarget: (path: string) => inner.linkTarget!(path) } : {}),
    // Known before the call runs, so a tool refuses it before anyone is asked to approve it.
    changeRefusal: (path) => readOnlyError(path),
  };
}
