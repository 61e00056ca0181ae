// `deepdesk checkpoints` and the `checkpoint` event of `deepdesk run --json`, through the
// built bin against the scripted model server, on a real folder.

import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-cp-cli');
const deepdesk = t.deepdesk;

const runAgent = (prompt: string) =>
  deepdesk(['run', '--json', '--thread', 'cp-thread', '--approve', 'auto', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, prompt]);

describe('deepdesk checkpoints', () => {
  it('lists, diffs and restores what the agent changed, refusing conflicts unless --force, and the restore can be undone', async () => {
    writeFileSync(join(t.folder, 'keep.txt'), 'the person wrote this\r\n');
    t.server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/notes.txt', content: 'hello\nworld\n' } }] },
      { toolCalls: [{ name: 'edit_file', args: { file_path: '/notes.txt', old_string: 'world', new_string: 'there' } }] },
      { toolCalls: [{ name: 'execute', args: { command: 'mkdir -p "out dir" && printf "made\\n" > "out dir/ünï.txt"' } }] },
      { toolCalls: [{ name: 'read_file', args: { file_path: '/keep.txt' } }] },
      { text: 'Done.' },
    );
    const run = await runAgent('Create notes\nand more');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; threadId: string; id?: string; files?: Array<{ path: string; status: string }> });
    const checkpoints = events.filter((e) => e.type === 'checkpoint');
    expect(checkpoints.map((e) => e.files)).toEqual([
      [{ path: '/notes.txt', status: 'added' }],
      [{ path: '/notes.txt', status: 'modified' }],
      [
        { path: '/out dir', status: 'added' },
        { path: '/out dir/ünï.txt', status: 'added' },
      ],
    ]);
    expect(checkpoints.every((e) => e.threadId === 'cp-thread' && /^[0-9a-f]{12}$/.test(e.id!))).toBe(true);
    // Each checkpoint event comes right after the result of the step that made it; reading makes none.
    const order = events.filter((e) => e.type === 'tool_result' || e.type === 'checkpoint').map((e) => e.type);
    expect(order).toEqual(['tool_result', 'checkpoint', 'tool_result', 'checkpoint', 'tool_result', 'checkpoint', 'tool_result']);

    const ls = await deepdesk(['checkpoints', 'ls', '--thread', 'cp-thread']);
    expect(ls.code).toBe(0);
    const lines = ls.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    lines.forEach((line, i) => {
      expect(line).toMatch(/^[0-9a-f]{12} {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}\d+ files {2}Create notes$/);
      expect(line.startsWith(checkpoints[i]!.id!)).toBe(true);
    });
    expect(lines[2]).toContain('  2 files  ');

    const diff = await deepdesk(['checkpoints', 'diff', checkpoints[1]!.id!]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toBe('diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n');
    const onePath = await deepdesk(['checkpoints', 'diff', checkpoints[2]!.id!, 'out dir/ünï.txt']);
    expect(onePath.stdout).toContain('--- a/out dir/ünï.txt\n+++ b/out dir/ünï.txt\n@@ -0,0 +1,1 @@\n+made\n');

    // The person changes the agent's file afterwards: a conflict.
    writeFileSync(join(t.folder, 'notes.txt'), 'hello\nmine now\n');
    const refused = await deepdesk(['checkpoints', 'restore', checkpoints[0]!.id!]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('notes.txt');
    expect(refused.stdout).not.toContain('ünï');
    expect(readFileSync(join(t.folder, 'notes.txt'), 'utf8')).toBe('hello\nmine now\n');
    expect(existsSync(join(t.folder, 'out dir/ünï.txt'))).toBe(true);

    const forced = await deepdesk(['checkpoints', 'restore', checkpoints[0]!.id!, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/^Restored 3 files$/m);
    expect(existsSync(join(t.folder, 'notes.txt'))).toBe(false);
    expect(existsSync(join(t.folder, 'out dir'))).toBe(false);
    expect(readFileSync(join(t.folder, 'keep.txt'), 'utf8')).toBe('the person wrote this\r\n');

    // The restore is a checkpoint of its own: restoring to before it puts everything back, the person's text included.
    const after = await deepdesk(['checkpoints', 'ls', '--thread', 'cp-thread']);
    const restoreId = after.stdout.trim().split('\n').at(-1)!.split('  ')[0]!;
    const undo = await deepdesk(['checkpoints', 'restore', restoreId]);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toMatch(/^Restored 3 files$/m);
    expect(readFileSync(join(t.folder, 'notes.txt'), 'utf8')).toBe('hello\nmine now\n');
    expect(readFileSync(join(t.folder, 'out dir/ünï.txt'), 'utf8')).toBe('made\n');
  });

  it('never restores through a link to .git/hooks, even with --force: the path is listed as a conflict, the rest is restored, exit 1', async () => {
    execFileSync('git', ['init', '-q'], { cwd: t.folder });
    const hooks = join(t.folder, '.git', 'hooks');
    const hooksBefore = readdirSync(hooks).sort();
    t.server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/x/post-checkout', content: '#!/bin/sh\necho v1\n' } }] },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/other.txt', content: 'other\n' } }] },
      { toolCalls: [{ name: 'edit_file', args: { file_path: '/x/post-checkout', old_string: 'v1', new_string: 'v2' } }] },
      { text: 'Done.' },
    );
    const run = await runAgent('Write a script');
    expect(run.code).toBe(0);
    const ids = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; id?: string })
      .filter((e) => e.type === 'checkpoint')
      .map((e) => e.id!);
    expect(ids).toHaveLength(3);
    // The person (or anything else) swaps the folder for a link to the repository's hooks.
    rmSync(join(t.folder, 'x'), { recursive: true });
    symlinkSync('.git/hooks', join(t.folder, 'x'));

    const asked = await deepdesk(['checkpoints', 'restore', ids[1]!]);
    expect(asked.code).toBe(1);
    expect(asked.stdout).toMatch(/^x\/post-checkout: goes through a link$/m);
    expect(existsSync(join(t.folder, 'other.txt'))).toBe(true);

    const forced = await deepdesk(['checkpoints', 'restore', ids[1]!, '--force']);
    expect(forced.code).toBe(1);
    expect(forced.stdout).toMatch(/^Restored 1 files$/m);
    expect(forced.stdout).toMatch(/^x\/post-checkout: goes through a link$/m);
    expect(existsSync(join(t.folder, 'other.txt'))).toBe(false);
    expect(readdirSync(hooks).sort()).toEqual(hooksBefore);
    expect(lstatSync(join(t.folder, 'x')).isSymbolicLink()).toBe(true);
  });

  it('exits 2 on bad usage and 1 on an unknown checkpoint', async () => {
    expect((await deepdesk(['checkpoints', 'ls'])).code).toBe(2);
    expect((await deepdesk(['checkpoints', 'frobnicate'])).code).toBe(2);
    const missing = await deepdesk(['checkpoints', 'diff', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("checkpoint 'nope' not found");
  });
});
