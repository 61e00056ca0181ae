// Runs the shared conformance suite on every backend.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createComposite } from '../mounts/composite';
import { FilesystemBackend } from '../filesystem/filesystem';
import { LocalShellBackend } from '../filesystem/local-shell';
import { withPolicies } from '../../extensions/hooks/policy-wrapper';
import { StateBackend } from '../store/state';
import { StoreBackend } from '../store/store';
import { describeBackendConformance } from './suite.test-support';

function tempDir(): { dir: string; remove(): void } {
  // realpath: on macOS the temp folder is reached through a symlink.
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-conformance-')));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

describeBackendConformance('StateBackend', {
  create: async () => ({ backend: new StateBackend(), cleanup: async () => {} }),
});

describeBackendConformance('StoreBackend', {
  create: async () => {
    const tmp = tempDir();
    const backend = new StoreBackend({ db: path.join(tmp.dir, 'store.db'), namespace: 'conformance' });
    return {
      backend,
      cleanup: async () => {
        backend.close();
        tmp.remove();
      },
    };
  },
});

describeBackendConformance('FilesystemBackend (ripgrep)', {
  create: async () => {
    const tmp = tempDir();
    return { backend: new FilesystemBackend({ rootDir: tmp.dir }), cleanup: async () => tmp.remove() };
  },
});

describeBackendConformance('FilesystemBackend (Node search)', {
  create: async () => {
    const tmp = tempDir();
    return { backend: new FilesystemBackend({ rootDir: tmp.dir, ripgrepPath: null }), cleanup: async () => tmp.remove() };
  },
});

// A policy that allows everything changes nothing.
describeBackendConformance('FilesystemBackend wrapped by withPolicies', {
  create: async () => {
    const tmp = tempDir();
    return { backend: withPolicies(new FilesystemBackend({ rootDir: tmp.dir }), [() => ({ decision: 'allow' })]), cleanup: async () => tmp.remove() };
  },
});

describeBackendConformance('LocalShellBackend', {
  create: async () => {
    const tmp = tempDir();
    return { backend: new LocalShellBackend({ rootDir: tmp.dir }), cleanup: async () => tmp.remove() };
  },
});

const composite = () => createComposite(new StateBackend(), [{ prefix: '/memories/', backend: new StateBackend(), listInRoot: 'always' }]);

describeBackendConformance('CompositeBackend', {
  create: async () => ({ backend: composite(), cleanup: async () => {} }),
  capabilities: { rootListingExtras: ['/memories/'] },
});

describeBackendConformance('CompositeBackend', {
  create: async () => ({ backend: composite(), cleanup: async () => {} }),
  root: '/memories/',
});
