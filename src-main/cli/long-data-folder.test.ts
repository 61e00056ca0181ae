// A data folder of any length works (issue 51): its path is too long for a socket inside it,
// so the host's socket lives in the person's own short private folder, and `deepdesk run`
// works end to end, the host found again by the next command.

import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { hostPaths } from '../app/host/paths';
import { removeDataDir } from '../app/host/testing/remove-data-dir';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-long-data');

it('a data folder path of 200+ characters runs an agent end to end', async () => {
  const dataDir = join(t.dataDir, 'nested-project-folder-'.repeat(10));
  mkdirSync(dataDir, { mode: 0o700 });
  expect(dataDir.length).toBeGreaterThan(200);
  t.server.push({ text: 'first' }, { text: 'second' });
  const run = (prompt: string) =>
    t.deepdesk(['run', '--folder', t.folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--thread', 'long', prompt]);
  try {
    const first = await run('one');
    expect(first).toMatchObject({ code: 0, stderr: '', stdout: 'first\n' });
    const paths = hostPaths(dataDir);
    expect(paths.socketDir).toBeDefined();
    expect(statSync(paths.socket).isSocket()).toBe(true);
    expect(statSync(paths.socketDir!).mode & 0o777).toBe(0o700);
    const second = await run('two');
    expect(second).toMatchObject({ code: 0, stderr: '', stdout: 'second\n' });
    const agents = await t.deepdesk(['agents', '--data-dir', dataDir]);
    expect(agents.code).toBe(0);
  } finally {
    removeDataDir(dataDir);
  }
}, 60_000);
