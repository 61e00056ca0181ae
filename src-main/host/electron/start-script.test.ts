// scripts/start-electron.mjs where no Electron binary exists: a clear message, exit 1, no download.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../scripts/start-electron.mjs', import.meta.url));

describe('npm start without an Electron binary', () => {
  it('explains and suggests `deepdesk serve`', () => {
    const emptyDist = mkdtempSync(join(tmpdir(), 'deepdesk-no-electron-'));
    try {
      const result = spawnSync(process.execPath, [script], {
        env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: emptyDist },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('the Electron binary is not available on this machine');
      expect(result.stderr).toContain('npx deepdesk serve');
      expect(result.stdout).not.toContain('Downloading');
    } finally {
      rmSync(emptyDist, { recursive: true, force: true });
    }
  });
});
