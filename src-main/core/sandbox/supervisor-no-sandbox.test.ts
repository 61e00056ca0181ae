// Fail closed: where no sandbox can be made, a process that wants one is not started at all
// (the sandbox module stands in for a machine without bubblewrap); one that opts out runs.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startProcess, stopAllProcesses } from './supervisor';

vi.mock('./index', () => ({
  createSandbox: () => Promise.resolve(undefined),
  detectSandbox: () => Promise.resolve({ available: false, reason: 'bubblewrap (bwrap) is not installed' }),
}));

let folder: string;

beforeEach(() => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-proc-nosbx-')));
});

afterEach(async () => {
  await stopAllProcesses();
  rmSync(folder, { recursive: true, force: true });
});

describe('without a sandbox on this machine', () => {
  const marker = join(tmpdir(), `deepdesk-nosbx-ran-${process.pid}`);
  const spec = (sandbox: { projectDir: string; dataDir: string } | false) => ({
    command: process.execPath,
    args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`],
    cwd: folder,
    env: {},
    sandbox,
  });

  it('refuses a sandboxed process with the reason and the way out, and runs nothing', async () => {
    await expect(startProcess(spec({ projectDir: folder, dataDir: join(folder, 'data') }))).rejects.toThrow(
      'no sandbox here (bubblewrap (bwrap) is not installed); set "sandbox": false in its entry to run it unsandboxed',
    );
    expect(() => realpathSync(marker)).toThrow();
  });

  it('runs one whose entry says "sandbox": false', async () => {
    const started = await startProcess(spec(false));
    expect(await started.exited).toEqual({ code: 0, signal: null });
    expect(realpathSync(marker)).toBe(marker);
    rmSync(marker);
  });
});
