// Issue 51 §10: in a data folder the person pointed at (an empty folder others may read),
// everything Deepdesk writes is the owner's alone from the moment it exists: one `deepdesk
// run` that writes a file (a checkpoint, a thread, the host's socket and logs), then every
// file under the data folder is 0600 or tighter and every folder 0700, the data folder first.

import { chmodSync, lstatSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-data-modes');

function everythingUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return lstatSync(path).isDirectory() ? [path, ...everythingUnder(path)] : [path];
  });
}

it('one run in a fresh, readable data folder leaves nothing another user can read', async () => {
  chmodSync(t.dataDir, 0o755);
  writeFileSync(join(t.folder, 'a.txt'), 'before\n');
  t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'after\n' } }] }, { text: 'done' });
  const previous = process.umask(0o022);
  try {
    const r = await t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'change a.txt'], { DEEPDESK_HOST_IDLE_SECONDS: '1' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  } finally {
    process.umask(previous);
  }
  expect(lstatSync(t.dataDir).mode & 0o777).toBe(0o700);
  const found = everythingUnder(t.dataDir);
  expect(found.map((p) => p.slice(t.dataDir.length + 1))).toContain('checkpoints.db');
  const open = found.flatMap((path) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return [];
    const wanted = st.isDirectory() ? 0o700 : 0o600;
    return (st.mode & 0o777 & ~wanted) !== 0 ? [`${path.slice(t.dataDir.length + 1)} ${(st.mode & 0o777).toString(8)}`] : [];
  });
  expect(open).toEqual([]);
}, 60_000);
