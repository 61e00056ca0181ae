// The guard watches with inotify on Linux, never through watchman: a repository's own
// .watchmanconfig could hide paths from watchman, and asking for it starts a shell before every
// sandboxed process. A `watchman` first on PATH must never run.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startGitGuard } from './git-guard';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-git-guard-')));
const path = process.env.PATH;

afterEach(() => {
  process.env.PATH = path;
  rmSync(root, { recursive: true, force: true });
});

it.skipIf(process.platform !== 'linux')('never asks watchman, even when it is first on PATH', async () => {
  const bin = join(root, 'bin');
  const folder = join(root, 'project');
  const marker = join(root, 'MARKER-watchman-ran');
  mkdirSync(bin);
  mkdirSync(folder);
  writeFileSync(join(bin, 'watchman'), `#!/bin/sh\necho ran >> '${marker}'\nexit 1\n`);
  chmodSync(join(bin, 'watchman'), 0o755);
  process.env.PATH = `${bin}:${path ?? ''}`;
  const reported: string[] = [];
  const guard = await startGitGuard({ folder, check: () => Promise.resolve(), report: (line) => reported.push(line), intervalMs: 60_000 });
  await guard.close();
  expect(reported).toEqual([]);
  expect(existsSync(marker)).toBe(false);
});
