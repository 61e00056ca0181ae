// The project folder as the editor has it (SPEC §14): when the editor offers
// fs/read_text_file and fs/write_text_file, reads, writes and edits of text files in the
// session's folder go through it (and the raw reads an edit checks against), so the agent reads and edits the person's unsaved
// buffers. Everything else (ls, glob, grep, media and large files, new files, commands)
// stays on the disk backend, and every result keeps the disk backend's shape, so the
// tools' output formats (§3) are the same.
//
// The disk backend still decides what a path is: it validates the path, refuses what is
// outside the folder and tells a text file from a binary one. A path that goes through a
// symbolic link, or into `.git/`, is left to the disk backend whole (its link checks
// apply there), so the editor is only ever asked about a plain file in the folder.

import { join } from 'node:path';
import type { Backend, EditResult, ExecuteOptions, ExecuteResult, ReadRawResult, ReadResult, ShellBackend, WriteResult } from '../../../core/backends/protocol';
import { DEFAULT_READ_LIMIT } from '../../../core/backends/protocol';
import { applyEdit, keepFileConventions, readTextWindow } from '../../../core/backends/text';
import { mediaTypeOf } from '../../../core/media/kinds';

/** The editor's side: whole-file text by real absolute path. */
export interface EditorFiles {
  read?: (absolutePath: string) => Promise<string>;
  write?: (absolutePath: string, content: string) => Promise<void>;
}

interface EditorFile {
  virtual: string;
  real: string;
  modifiedAt?: string;
}

/** Reads need no write: a read never calls it. */
const refuseWrite = (): Promise<void> => Promise.reject(new Error('the editor does not write files'));

/** Files larger than this on disk are read from disk (an editor sends a buffer whole, in one message). */
const MAX_EDITOR_FILE_BYTES = 2 * 1024 * 1024;

export class EditorFsBackend implements ShellBackend {
  readonly id: string;

  constructor(
    private readonly disk: ShellBackend,
    /** The folder's real path: the disk backend's `/`. */
    private readonly root: string,
    private readonly editor: EditorFiles,
    private readonly log: (line: string) => void = () => undefined,
    /** Runs `execute` instead of the disk backend (the editor's terminal, editor-terminal.ts). */
    private readonly runCommand?: (command: string, options?: ExecuteOptions) => Promise<ExecuteResult>,
  ) {
    this.id = disk.id;
  }

  read(path: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    return this.viaEditor(path, 'read', 'reading it from disk', () => this.disk.read(path, offset, limit), async (content, file) =>
      readTextWindow(content, offset, limit, file.modifiedAt !== undefined ? { modifiedAt: file.modifiedAt } : {}));
  }

  /** The bytes of a text file as the editor has it (an edit's check and its diff read this way). */
  readRaw(path: string): Promise<ReadRawResult> {
    return this.viaEditor(path, 'read', 'reading it from disk', () => this.disk.readRaw(path), async (content) => ({ data: new Uint8Array(Buffer.from(content, 'utf8')) }));
  }

  /** A new file is created on disk; an existing one is replaced in the editor's buffer. */
  write(path: string, content: string): Promise<WriteResult> {
    return this.viaEditor(path, 'write', 'writing it on disk', () => this.disk.write(path, content), (previous, file, write) =>
      written(write, file, keepFileConventions(previous, content), { path: file.virtual }),
    );
  }

  edit(path: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    return this.viaEditor(path, 'write', 'editing it on disk', () => this.disk.edit(path, oldString, newString, replaceAll), async (text, file, write) => {
      const outcome = applyEdit(text, oldString, newString, replaceAll);
      if (!outcome.ok) return { error: outcome.error };
      return written(write, file, outcome.content, { path: file.virtual, occurrences: outcome.occurrences });
    });
  }

  /**
   * Runs `withText` on the file's text as the editor has it, when the editor serves this file
   * (and can write it, for `needs: 'write'`); otherwise, or when the editor cannot read it, `onDisk`.
   */
  private async viaEditor<T>(
    path: string,
    needs: 'read' | 'write',
    fallback: string,
    onDisk: () => Promise<T>,
    withText: (text: string, file: EditorFile, write: NonNullable<EditorFiles['write']>) => Promise<T>,
  ): Promise<T> {
    const { read, write } = this.editor;
    if (read === undefined || (needs === 'write' && write === undefined)) return onDisk();
    const file = await this.editorFile(path);
    if (file === null) return onDisk();
    let text: string;
    try {
      text = await read(file.real);
    } catch (err) {
      this.log(`the editor could not read ${file.real}, ${fallback}: ${messageOf(err)}`);
      return onDisk();
    }
    return withText(text, file, write ?? refuseWrite);
  }

  /**
   * The file when the editor should serve it: an existing text file of the folder, not too
   * large, reached without a symbolic link and outside `.git/`; otherwise null (disk).
   */
  private async editorFile(path: string): Promise<EditorFile | null> {
    if (mediaTypeOf(path) !== null) return null;
    const stat = await this.disk.stat(path);
    const info = stat.info;
    if (stat.error !== undefined || info === undefined || info.isDir === true) return null;
    if ((info.size ?? 0) > MAX_EDITOR_FILE_BYTES) return null;
    const virtual = info.path;
    if (virtual.split('/').includes('.git')) return null;
    if ((await this.disk.linkTarget?.(virtual)) != null) return null;
    // Text or not, as the disk backend reads it (a binary file comes back as base64).
    const head = await this.disk.read(virtual, 0, 1);
    if (head.error !== undefined || head.fileData?.encoding !== 'utf-8') return null;
    return { virtual, real: join(this.root, virtual), ...(info.modifiedAt !== undefined ? { modifiedAt: info.modifiedAt } : {}) };
  }

  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult> {
    return this.runCommand ? this.runCommand(command, options) : this.disk.execute(command, options);
  }

  ls: Backend['ls'] = (path) => this.disk.ls(path);
  delete: Backend['delete'] = (path) => this.disk.delete(path);
  grep: Backend['grep'] = (...args) => this.disk.grep(...args);
  glob: Backend['glob'] = (...args) => this.disk.glob(...args);
  stat: Backend['stat'] = (path) => this.disk.stat(path);
  uploadFiles: Backend['uploadFiles'] = (files) => this.disk.uploadFiles(files);
  downloadFiles: Backend['downloadFiles'] = (paths) => this.disk.downloadFiles(paths);
  linkTarget = (path: string) => this.disk.linkTarget?.(path) ?? Promise.resolve(null);
  alwaysAskReason = (path: string) => this.disk.alwaysAskReason?.(path) ?? Promise.resolve(null);
}

/** `done` once the editor wrote `content` to the file, else why not. */
async function written<T>(write: NonNullable<EditorFiles['write']>, file: EditorFile, content: string, done: T): Promise<T | { error: string }> {
  try {
    await write(file.real, content);
  } catch (err) {
    return { error: `the editor could not write '${file.virtual}': ${messageOf(err)}` };
  }
  return done;
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}
