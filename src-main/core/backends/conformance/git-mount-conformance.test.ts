// The conformance suite on a git mount (SPEC §13): the work tree of a clone of a real (empty)
// bare repository answers case for case as the disk backend does, with no commit at all.
//
// One adaptation: a git mount refuses every write into a `.git` folder (git-mount.test.ts
// checks that), so the case that seeds `.git/` files to see grep and glob skip them gets
// them written straight into the work tree on disk, as if the content held them.

import fs from 'node:fs';
import path from 'node:path';
import type { Backend } from '../protocol';
import { GitMountBackend } from '../git-mount/git-mount';
import { makeRemote, tempDir, TEST_GIT_ENV } from '../git-mount/git-mount.test-support';
import { describeBackendConformance } from './suite.test-support';

function seedingGitFolders(mount: GitMountBackend): Backend {
  const write: Backend['write'] = async (p, content) => {
    if (!/(^|\/)\.git\//i.test(p)) return mount.write(p, content);
    await mount.ls('/');
    const file = path.join(mount.workTreeDir!, ...p.split('/').filter(Boolean));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return { path: p };
  };
  return new Proxy(mount, {
    get(target, prop) {
      if (prop === 'write') return write;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describeBackendConformance('GitMountBackend (file:// remote)', {
  create: async () => {
    const root = tempDir('gitmount-conf');
    const bare = makeRemote(root);
    const mount = new GitMountBackend({ url: `file://${bare}`, cacheRoot: path.join(root, 'mounts'), env: TEST_GIT_ENV });
    return {
      backend: seedingGitFolders(mount),
      cleanup: async () => {
        await mount.close();
        fs.rmSync(root, { recursive: true, force: true });
      },
    };
  },
});
