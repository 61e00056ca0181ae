// Worktrees through the built CLI (SPEC §16): `deepdesk run --worktree` makes one and the
// agent's writes land there, not in the person's folder; `worktrees ls` shows it with its
// thread; `apply` lists a conflict and changes nothing, then brings the change; `rm` refuses
// while work would be lost and removes it with --force.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';
import { parseRunArgs } from './run-command';

const t = useCliTestEnv('deepdesk-worktrees');
const model = () => ['--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url];
const worktrees = (...args: string[]) => t.deepdesk(['worktrees', ...args, '--data-dir', t.dataDir]);
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=Pat', '-c', 'user.email=pat@example.com', ...args], { cwd, encoding: 'utf8' });

describe('deepdesk worktrees', () => {
  it('run --worktree writes in the worktree; ls shows it; apply lists a conflict, then applies; rm refuses unapplied work, --force removes it', async () => {
    git(t.folder, 'init', '-q');
    writeFileSync(join(t.folder, 'notes.txt'), 'notes\n');
    git(t.folder, 'add', '-A');
    git(t.folder, 'commit', '-q', '-m', 'base');
    writeFileSync(join(t.folder, 'notes.txt'), 'my own edit\n');

    t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/agent.txt', content: 'from the agent\n' } }] }, { text: 'written' });
    const run = await t.deepdesk(['run', '--worktree', 'feature', ...model(), '--approve', 'auto', 'write agent.txt']);
    expect(run.stdout).toBe('written\n');
    expect(run.code).toBe(0);
    const wt = join(realpathSync(t.dataDir), 'worktrees', 'feature');
    expect(run.stderr).toContain("the folder's 1 uncommitted change was not carried into the worktree (--carry-changes carries it)");
    expect(run.stderr).toContain(`worktree feature at ${wt} (branch deepdesk/feature)`);
    expect(readFileSync(join(wt, 'agent.txt'), 'utf8')).toBe('from the agent\n');
    expect(readFileSync(join(wt, 'notes.txt'), 'utf8')).toBe('notes\n');
    expect(existsSync(join(t.folder, 'agent.txt'))).toBe(false);

    const listed = JSON.parse((await worktrees('ls', '--json')).stdout) as Array<{ name: string; threads: string[]; changes: unknown }>;
    expect(listed).toEqual([expect.objectContaining({ name: 'feature', changes: { added: 1, modified: 0, deleted: 0 } })]);
    const threadId = listed[0]!.threads[0]!;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    const ls = await worktrees('ls');
    expect(ls.stdout).toMatch(new RegExp(`^NAME\\s+BRANCH\\s+THREAD\\s+CHANGES\\s+FOLDER\\n`));
    expect(ls.stdout).toMatch(new RegExp(`^feature\\s+deepdesk/feature\\s+${threadId}\\s+\\+1\\s+${t.folder}$`, 'm'));

    const refused = await worktrees('rm', threadId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('worktree feature was not removed: 1 changed file not applied, 1 uncommitted');

    // The person made a file of that name meanwhile: a conflict, nothing applied.
    writeFileSync(join(t.folder, 'agent.txt'), 'the person’s own\n');
    const clash = await worktrees('apply', threadId);
    expect(clash.code).toBe(1);
    expect(clash.stdout).toContain('conflict with');
    // The conflicting lines of both sides, as git's conflict view shows them, and the ways on.
    expect(clash.stdout).toContain(
      '(nothing was changed):\n  agent.txt\n    added both in your folder and in worktree feature, differently\n    @@ line 1 @@\n    <<<<<<< your folder\n    the person’s own\n    =======\n    from the agent\n    >>>>>>> worktree feature\nWays on:\n',
    );
    expect(clash.stdout).toContain(`git -C ${t.folder} merge deepdesk/feature\n`);
    expect(clash.stdout).toContain('Ask the agent to resolve');
    expect(readFileSync(join(t.folder, 'agent.txt'), 'utf8')).toBe('the person’s own\n');

    rmSync(join(t.folder, 'agent.txt'));
    const applied = await worktrees('apply', threadId);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`Applied 1 file of worktree feature to ${t.folder} (uncommitted):\n  agent.txt\n`);
    expect(applied.stdout).toMatch(/kept in refs\/deepdesk\/before-apply\/feature\/\w+\.\n/);
    expect(readFileSync(join(t.folder, 'agent.txt'), 'utf8')).toBe('from the agent\n');
    expect(readFileSync(join(t.folder, 'notes.txt'), 'utf8')).toBe('my own edit\n');
    expect((await worktrees('ls')).stdout).toMatch(/\+1 \(applied\)/);

    writeFileSync(join(wt, 'more.txt'), 'more work\n');
    expect((await worktrees('rm', 'feature')).code).toBe(1);
    const removed = await worktrees('rm', threadId, '--force');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      `Removed worktree feature and its branch deepdesk/feature.\nIts thread is kept, now in ${t.folder}: ${threadId} (deepdesk run --folder ${t.folder} --thread ID continues one).\n`,
    );
    expect(existsSync(wt)).toBe(false);
    expect(git(t.folder, 'branch', '--list', 'deepdesk/*')).toBe('');
    expect((await worktrees('ls')).stdout).toContain('No worktrees yet');

    // Its thread goes on in the folder, its agent told where it is now.
    t.server.push({ text: 'continued here' });
    const more = await t.deepdesk(['run', '--thread', threadId, ...model(), 'and now?']);
    expect(more.stdout).toBe('continued here\n');
    expect(JSON.stringify(t.server.requests.at(-1)!.messages)).toContain(`works in the person's folder ${t.folder} itself`);
  });

  it('a revoke in the folder reaches its worktree at once: the trusted hook runs there before it, never after', async () => {
    mkdirSync(join(t.folder, '.claude'));
    writeFileSync(join(t.folder, '.claude', 'settings.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo ran >> "$CLAUDE_PROJECT_DIR/hook-ran.txt"' }] }] } }));
    git(t.folder, 'init', '-q');
    git(t.folder, 'add', '-A');
    git(t.folder, 'commit', '-q', '-m', 'base');
    expect((await t.deepdesk(['trust', '--folder', t.folder, '--data-dir', t.dataDir])).code).toBe(0);
    t.server.push({ text: 'one' });
    expect((await t.deepdesk(['run', '--worktree', 'trusted', ...model(), 'hi'])).code).toBe(0);
    const wt = join(realpathSync(t.dataDir), 'worktrees', 'trusted');
    expect(readFileSync(join(wt, 'hook-ran.txt'), 'utf8')).toBe('ran\n');
    rmSync(join(wt, 'hook-ran.txt'));

    expect((await t.deepdesk(['trust', '--revoke', '--folder', t.folder, '--data-dir', t.dataDir])).code).toBe(0);
    t.server.push({ text: 'two' });
    const after = await t.deepdesk(['run', '--folder', wt, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, 'hi again']);
    expect(after.stdout).toBe('two\n');
    expect(existsSync(join(wt, 'hook-ran.txt'))).toBe(false);
  });

  it('says what is wrong: --worktree with --thread, a folder outside git, an unknown THREAD', async () => {
    const both = await t.deepdesk(['run', '--worktree', '--thread', 'x', ...model(), 'hi']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--worktree starts a new thread in a new worktree');
    const plain = await t.deepdesk(['run', '--worktree', ...model(), 'hi']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('worktrees need a local git repository');
    const unknown = await worktrees('apply', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no thread or worktree 'nope'");
  });

  it("reads --worktree's optional name", () => {
    const read = (...argv: string[]) => {
      const { values, positionals } = parseRunArgs(argv);
      return [values.worktree, positionals.join(' ')];
    };
    expect(read('--worktree', 'fix-it', 'do the thing')).toEqual(['fix-it', 'do the thing']);
    expect(read('--worktree', 'do the thing')).toEqual(['', 'do the thing']);
    expect(read('--worktree', 'hello')).toEqual(['', 'hello']);
    expect(read('--worktree=named', 'hello')).toEqual(['named', 'hello']);
    expect(read('--worktree', '--json', 'hello')).toEqual(['', 'hello']);
    expect(read('--worktree', 'fix', '--json', 'hello')).toEqual(['fix', 'hello']);
    expect(read('hello')).toEqual([undefined, 'hello']);
  });
});
