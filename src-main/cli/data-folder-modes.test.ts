// Issue 51 §10: in a data folder the person pointed at (an empty folder others may read),
// everything Deepdesk writes is the owner's alone from the moment it exists: one `deepdesk
// run` that writes a file (a checkpoint, a thread, the host's socket and logs), then every
// file under the data folder is 0600 or tighter and every folder 0700, the data folder first.

import { chmodSync, lstatSync, readdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
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

it("in a folder the person shares with other things, what Deepdesk makes there is still the owner's alone", async () => {
  chmodSync(t.dataDir, 0o755);
  writeFileSync(join(t.dataDir, 'notes.txt'), 'theirs\n');
  chmodSync(join(t.dataDir, 'notes.txt'), 0o644);
  execFileSync('git', ['init', '-q'], { cwd: t.folder });
  writeFileSync(join(t.folder, 'a.txt'), 'before\n');
  execFileSync('git', ['add', '-A'], { cwd: t.folder });
  execFileSync('git', ['-c', 'user.name=p', '-c', 'user.email=p@example.com', 'commit', '-qm', 'init'], { cwd: t.folder });
  t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/b.txt', content: 'new\n' } }] }, { text: 'done' });
  const previous = process.umask(0o022);
  try {
    const env = { DEEPDESK_HOST_IDLE_SECONDS: '1' };
    expect((await t.deepdesk(['trust', '--folder', t.folder], env)).code).toBe(0);
    expect((await t.deepdesk(['memories', 'write', '/memories/note.md'], env, 'remember\n')).code).toBe(0);
    const r = await t.deepdesk(['run', '--folder', t.folder, '--worktree', 'w1', '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'add b.txt'], env);
    expect(r.code, r.stderr).toBe(0);
  } finally {
    process.umask(previous);
  }
  // The folder itself is the person's to open or close (a later session tightens it once it holds Deepdesk's data).
  // What another user can reach: an entry whose folders above it (in the data folder) all let
  // others through, and that itself lets them in. A worktree's checkout keeps git's modes
  // inside the private worktrees folder.
  const reachable = (path: string): boolean => {
    const st = lstatSync(path);
    if (st.isSymbolicLink() || path === join(t.dataDir, 'notes.txt')) return false;
    return (st.mode & 0o077) !== 0 && (path === t.dataDir || parentsOpen(path));
  };
  const parentsOpen = (path: string): boolean => {
    for (let dir = join(path, '..'); dir.length > t.dataDir.length; dir = join(dir, '..')) if ((lstatSync(dir).mode & 0o011) === 0) return false;
    return true;
  };
  const open = everythingUnder(t.dataDir).filter(reachable).map((path) => `${path.slice(t.dataDir.length + 1)} ${(lstatSync(path).mode & 0o777).toString(8)}`);
  expect(open).toEqual([]);
  expect(lstatSync(join(t.dataDir, 'worktrees')).mode & 0o777).toBe(0o700);
}, 90_000);
