import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FilesystemBackend } from './filesystem';
import { describeBackendConformance } from './conformance/suite';

for (const ripgrepPath of ['/usr/bin/rg', null]) {
  describeBackendConformance(`FilesystemBackend rg=${ripgrepPath}`, {
    create: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsb-conf-'));
      return { backend: new FilesystemBackend({ rootDir: dir, ripgrepPath }), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  });
}
