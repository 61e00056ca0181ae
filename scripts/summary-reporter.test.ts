// The closing line counts every way a run can fail, not only failing tests: a real vitest
// run (a child process with its own config) over files that fail to load, fail in hooks and
// leave an unhandled rejection.

import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '..');
const fixtures = join(repo, 'scripts', 'summary-reporter-fixtures');

function runFixtures(...files: string[]): { status: number | null; stdout: string } {
  const result = spawnSync(process.execPath, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(fixtures, 'vitest.config.ts'), ...files], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout };
}

describe('summary reporter', () => {
  it('counts a file that fails to load, failing hooks and an unhandled error as failed, and the run exits non-zero', () => {
    const run = runFixtures();
    expect(run.stdout).toMatch(/^tests: 3 passed, 4 failed, 2 skipped$/m);
    expect(run.stdout).toContain('fails-to-load.fixture.ts (failed to load): Error: this file cannot be loaded');
    expect(run.stdout).toContain('before-all-hook.fixture.ts › a suite whose set-up throws (hook): Error: beforeAll failed');
    expect(run.stdout).toContain('after-all-hook.fixture.ts (hook): Error: afterAll failed');
    expect(run.stdout).toContain('unhandled error: Error: unhandled rejection');
    expect(run.status).toBe(1);
  });

  it('a file that fails to load alone still reads as a failure', () => {
    const run = runFixtures('fails-to-load');
    expect(run.stdout).toMatch(/^tests: 0 passed, 1 failed, 0 skipped$/m);
    expect(run.status).toBe(1);
  });

  it('a clean run reads 0 failed and exits 0', () => {
    const run = runFixtures('passes');
    expect(run.stdout).toMatch(/^tests: 1 passed, 0 failed, 1 skipped$/m);
    expect(run.stdout).not.toContain('failed outside tests');
    expect(run.status).toBe(0);
  });
});
