// The /skills/ backend through the backend conformance suite, as far as a read-only backend
// can: the suite seeds its files with write/edit/delete/upload, which go straight to the
// skill's folder on disk here; every read, ls, glob, grep, stat and download it checks goes
// through the read-only SkillsBackend (root `/pdf`, one skill's folder).

import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilesystemBackend } from '../filesystem/filesystem';
import { describeBackendConformance } from '../conformance/suite.test-support';
import type { Backend } from '../protocol';
import { SkillsBackend } from './skills-backend';
import type { Skill } from '../../extensions/skills/types';

function skillAt(dir: string): Skill {
  return {
    name: 'pdf',
    description: 'PDFs.',
    source: 'user',
    file: join(dir, 'SKILL.md'),
    dir,
    virtualPath: '/skills/pdf/SKILL.md',
    disableModelInvocation: false,
    digest: '',
    body: () => Promise.resolve(''),
  };
}

describeBackendConformance('SkillsBackend (read-only; seeded on disk)', {
  root: '/pdf',
  create: async () => {
    const parent = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-skills-conformance-')));
    mkdirSync(join(parent, 'pdf'));
    const skills = new SkillsBackend(() => [skillAt(join(parent, 'pdf'))]);
    const disk = new FilesystemBackend({ rootDir: parent });
    const backend: Backend = {
      ls: (path) => skills.ls(path),
      read: (path, offset, limit) => skills.read(path, offset, limit),
      readRaw: (path) => skills.readRaw(path),
      grep: (pattern, path, glob, maxCount) => skills.grep(pattern, path, glob, maxCount),
      glob: (pattern, path) => skills.glob(pattern, path),
      stat: (path) => skills.stat(path),
      downloadFiles: (paths) => skills.downloadFiles(paths),
      write: (path, content) => disk.write(path, content),
      edit: (path, oldString, newString, replaceAll) => disk.edit(path, oldString, newString, replaceAll),
      delete: (path) => disk.delete(path),
      uploadFiles: (files) => disk.uploadFiles(files),
    };
    return { backend, cleanup: () => Promise.resolve(rmSync(parent, { recursive: true, force: true })) };
  },
});
