// The person's skills at `/skills/<name>/` (SPEC §11), read-only: each skill's folder is a
// FilesystemBackend (so reads, ls, glob and grep behave as the folder's own, links out of the
// skill's folder are refused), joined under one composite that is rebuilt when the list of
// skills changes. Every change is refused: a skill is edited in its own folder.

import { createComposite } from './composite';
import { FilesystemBackend } from '../filesystem/filesystem';
import type {
  Backend, DeleteResult, EditResult, FileDownloadResponse, FileUpload, FileUploadResponse, GlobResult, GrepResult, LsResult,
  ReadRawResult, ReadResult, StatResult, WriteResult,
} from '../protocol';
import { StateBackend } from '../store/state';
import type { Skill } from '../../extensions/skills/types';
import { SKILLS_MOUNT } from './skills-mount';

/** The error for any change under the mount (the path is the backend's own; the mount puts `/skills` back). */
export function readOnlySkillError(path: string): string {
  return `'${path}' is in a skill, mounted read-only at ${SKILLS_MOUNT}; a skill is changed in its own folder, not by the agent`;
}

/** Whether a skill is served here (rather than read in the project folder). */
export function isMountedSkill(skill: Skill): boolean {
  return skill.virtualPath.startsWith(SKILLS_MOUNT);
}

export class SkillsBackend implements Backend {
  private built: { key: string; backend: Backend } | null = null;

  constructor(private readonly source: () => readonly Skill[]) {}

  /** The composite for the current skills, reused while their names and folders are the same. */
  private view(): Backend {
    const skills = this.source().filter(isMountedSkill);
    const key = skills.map((s) => `${s.name}\0${s.dir}`).join('\0\0');
    if (this.built?.key !== key) {
      const routes = skills.map((s) => ({ prefix: `/${s.name}/`, backend: new FilesystemBackend({ rootDir: s.dir }), listInRoot: 'always' as const }));
      this.built = { key, backend: createComposite(new StateBackend(), routes) };
    }
    return this.built.backend;
  }

  ls(path: string): Promise<LsResult> {
    return this.view().ls(path);
  }
  read(path: string, offset?: number, limit?: number): Promise<ReadResult> {
    return this.view().read(path, offset, limit);
  }
  readRaw(path: string): Promise<ReadRawResult> {
    return this.view().readRaw(path);
  }
  grep(pattern: string, path?: string, glob?: string, maxCount?: number): Promise<GrepResult> {
    return this.view().grep(pattern, path, glob, maxCount);
  }
  glob(pattern: string, path?: string): Promise<GlobResult> {
    return this.view().glob(pattern, path);
  }
  stat(path: string): Promise<StatResult> {
    return this.view().stat(path);
  }
  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return this.view().downloadFiles(paths);
  }
  /** Every change is refused, before anyone is asked about it. */
  changeRefusal(path: string): string {
    return readOnlySkillError(path);
  }
  write(path: string, _content: string): Promise<WriteResult> {
    return Promise.resolve({ error: readOnlySkillError(path) });
  }
  edit(path: string, _oldString: string, _newString: string, _replaceAll?: boolean): Promise<EditResult> {
    return Promise.resolve({ error: readOnlySkillError(path) });
  }
  delete(path: string): Promise<DeleteResult> {
    return Promise.resolve({ error: readOnlySkillError(path) });
  }
  uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    return Promise.resolve(files.map((file) => ({ path: file.path, error: 'permission_denied' as const })));
  }
}
