// Worktrees through the window's contract (SPEC §16, issue 40), with the real app, SQLite, the
// system git and the scripted model: a worktree made of the person's folder (carrying its
// uncommitted change and its mode), an agent's write in the worktree's own app landing in the
// worktree and not in the person's folder, its state and diff, Apply to folder (a conflict
// first: nothing applied), Commit… on its branch, the Agents view naming it, and Remove
// worktree refusing while work would be lost.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until, useAppTestEnv } from './app-harness.test-support';
import { createApp, type App } from './folder-app';
import { parseRequest, type AgentDto, type ContractError, type EventFrame, type MethodName, type Params, type Result } from '../contract';
import { createWindowFolders } from '../folders/window-folders';
import { FileSecretStore } from '../settings/file-secret-store';
import { sessionId } from '../../core/checkpoints/provenance/git-ai-note';

const env = useAppTestEnv('deepdesk-worktrees-app');

/** git as the person runs it: no configuration of this machine, their name in the repository's own. */
const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' });
}

const apps: App[] = [];

/** The app of `folder` on the test's data folder, called as a transport does (params checked first). */
async function open(folder: string) {
  const app = await createApp({
    folder,
    dataDir: env.dataDir,
    secrets: new FileSecretStore(env.dataDir),
    transport: 'web',
    overrides: { model: 'openai-compatible:scripted-model', baseUrl: env.server.url },
    env: { ...gitEnv, OPENAI_API_KEY: '' },
  });
  apps.push(app);
  const events: EventFrame[] = [];
  app.onEvent((frame) => events.push(frame));
  const call = async <M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> => {
    const parsed = parseRequest({ id: 1, method, params });
    return app.handle(parsed.method, parsed.params as never) as Promise<Result<M>>;
  };
  const close = async (): Promise<void> => {
    apps.splice(apps.indexOf(app), 1);
    await app.close();
  };
  return { app, call, events, close };
}

async function refusal(work: Promise<unknown>): Promise<ContractError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as ContractError;
}

const changed = (events: EventFrame[]) => events.filter((e) => e.event === 'worktrees.changed').length;

// Registered after the harness's: runs before it removes the folders (hooks run as a stack).
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function makeRepository(): void {
  git(env.folder, 'init', '-q', '-b', 'main');
  git(env.folder, 'config', 'user.name', 'Pat Person');
  git(env.folder, 'config', 'user.email', 'pat@example.com');
  writeFileSync(join(env.folder, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(env.folder, 'shared.txt'), 'line 1\nline 2\nline 3\n');
  git(env.folder, 'add', '-A');
  git(env.folder, 'commit', '-q', '-m', 'base');
}

describe('worktrees in the window', () => {
  it('a folder that is not a git repository, or has no commit yet, cannot have worktrees, and is not one', async () => {
    const { call } = await open(env.folder);
    expect(await call('worktrees.canCreate', {})).toEqual({ git: false, why: expect.stringMatching(/^Worktrees need a local git repository; \S+ is not in one\.$/) });
    expect(await call('worktrees.info', {})).toBeNull();
    expect((await refusal(call('worktrees.apply', {}))).message).toMatch(/not a worktree/);
    git(env.folder, 'init', '-q');
    expect(await call('worktrees.canCreate', { count: false })).toEqual({ git: false, why: expect.stringMatching(/has no commit yet/) });
    expect((await refusal(call('worktrees.create', { carry: false }))).message).toMatch(/has no commit yet/);
  });

  it('makes a worktree the agent works in, applies it to the folder (conflicts: nothing), commits it and removes it', async () => {
    makeRepository();
    const person = realpathSync(env.folder);
    // The person's own uncommitted change, carried over.
    writeFileSync(join(env.folder, 'a.txt'), 'one\ntwo, changed\nthree\n');

    const origin = await open(env.folder);
    await origin.call('mode.set', { mode: 'edit' });
    expect(await origin.call('worktrees.canCreate', {})).toEqual({ git: true, uncommitted: 1 });
    expect(await origin.call('worktrees.canCreate', { count: false })).toEqual({ git: true });
    expect(await origin.call('worktrees.info', {})).toBeNull();
    const bad = await refusal(origin.call('worktrees.create', { name: 'Not A Name', carry: false }));
    expect(bad.message).toMatch(/^'Not A Name' is not a worktree name/);
    expect((bad as ContractError).code).toBe('bad_request');

    const made = await origin.call('worktrees.create', { name: 'feature', carry: true });
    expect(made).toMatchObject({ name: 'feature', branch: 'deepdesk/feature', carried: 1 });
    expect(made.threadFolder).toBe(join(realpathSync(env.dataDir), 'worktrees', 'feature'));
    expect(changed(origin.events)).toBe(1);
    expect((await refusal(origin.call('worktrees.create', { name: 'feature', carry: false }))).message).toMatch(/exists already/);

    // The window opens the worktree's folder: its own app, in the folder's mode.
    const tree = await open(made.threadFolder);
    expect((await tree.call('mode.get', {})).mode).toBe('edit');
    expect(await tree.call('worktrees.canCreate', {})).toMatchObject({ git: false, why: expect.stringMatching(/is the worktree feature/) });
    const info = await tree.call('worktrees.info', {});
    expect(info).toMatchObject({ name: 'feature', branch: 'deepdesk/feature', originFolder: person, originName: person.split('/').pop(), ahead: 0, uncommitted: 1, applied: false });
    expect(info!.files).toEqual([{ path: 'a.txt', kind: 'modified', added: 1, removed: 1 }]);

    // The agent writes in the worktree (edit mode: no approval), not in the person's folder.
    env.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/new.txt', content: 'from the agent\n' } }] }, { text: 'Wrote it.' });
    const thread = await tree.call('threads.create', {});
    await tree.call('threads.send', { threadId: thread.id, text: 'write new.txt' });
    await until(async () => !(await tree.call('threads.list', {})).some((t) => t.running) && existsSync(join(made.threadFolder, 'new.txt')), 'the agent’s write');
    expect(readFileSync(join(made.threadFolder, 'new.txt'), 'utf8')).toBe('from the agent\n');
    expect(existsSync(join(env.folder, 'new.txt'))).toBe(false);
    expect((await tree.call('checkpoints.changes', { threadId: thread.id })).files.map((f) => f.path)).toEqual(['/new.txt']);

    const after = (await tree.call('worktrees.info', {}))!;
    expect(after.files.map((f) => [f.path, f.kind]).sort()).toEqual([['a.txt', 'modified'], ['new.txt', 'added']]);
    expect(after.counts).toEqual({ added: 1, modified: 1, deleted: 0 });
    const diff = await tree.call('worktrees.diff', {});
    expect(diff.truncated).toBe(false);
    expect(diff.diff).toContain('+from the agent');
    expect(diff.diff).toContain('+two, changed');

    // The Agents view names the thread's worktree.
    const host = await createWindowFolders({ dataDir: env.dataDir, transport: 'web', folder: null, openApp: async () => tree.app, openRemoteApp: async () => tree.app });
    try {
      const listed = (await host.handle('agentsView.list', {})) as AgentDto[];
      expect(listed.find((a) => a.threadId === thread.id)?.worktree).toEqual({ name: 'feature', branch: 'deepdesk/feature', originFolder: person });
    } finally {
      await host.close();
    }

    // Both change the same line: nothing is applied, the file is listed.
    writeFileSync(join(made.threadFolder, 'shared.txt'), 'line 1\nline 2 (worktree)\nline 3\n');
    writeFileSync(join(env.folder, 'shared.txt'), 'line 1\nline 2 (mine)\nline 3\n');
    const conflicting = await tree.call('worktrees.apply', {});
    expect(conflicting).toMatchObject({ applied: [], conflicts: ['shared.txt'] });
    expect(conflicting.details).toEqual([{ path: 'shared.txt', notes: [], truncated: false, hunks: [{ line: 2, before: ['line 1'], folder: ['line 2 (mine)'], worktree: ['line 2 (worktree)'], after: ['line 3'] }] }]);
    expect(existsSync(join(env.folder, 'new.txt'))).toBe(false);
    expect(readFileSync(join(env.folder, 'shared.txt'), 'utf8')).toBe('line 1\nline 2 (mine)\nline 3\n');

    // The person takes theirs back: it applies, their folder's state before kept under a ref.
    writeFileSync(join(env.folder, 'shared.txt'), 'line 1\nline 2\nline 3\n');
    const before = changed(tree.events);
    const applied = await tree.call('worktrees.apply', {});
    expect(applied.conflicts).toEqual([]);
    expect([...applied.applied].sort()).toEqual(['new.txt', 'shared.txt']);
    expect(applied.savedRef).toMatch(/\S/);
    expect(readFileSync(join(env.folder, 'new.txt'), 'utf8')).toBe('from the agent\n');
    expect(readFileSync(join(env.folder, 'shared.txt'), 'utf8')).toBe('line 1\nline 2 (worktree)\nline 3\n');
    expect(readFileSync(join(env.folder, 'a.txt'), 'utf8')).toBe('one\ntwo, changed\nthree\n');
    expect(changed(tree.events)).toBe(before + 1);
    expect((await tree.call('worktrees.info', {}))!.applied).toBe(true);

    // Commit… on its branch; the person's branch does not move.
    const head = git(env.folder, 'rev-parse', 'HEAD').trim();
    const commit = await tree.call('worktrees.commit', { message: 'The agent’s work' });
    expect(commit.files).toBe(3);
    expect(git(env.folder, 'rev-parse', 'deepdesk/feature').trim()).toBe(commit.commit);
    expect(git(env.folder, 'rev-parse', 'HEAD').trim()).toBe(head);
    // Noted in the same call (SPEC §24), not on the next look: the agent's line is its thread's.
    const note = git(made.threadFolder, 'notes', '--ref=refs/notes/ai', 'show', commit.commit);
    expect(note).toMatch(new RegExp(`^new\\.txt\\n  ${sessionId(thread.id)}::t_[0-9a-f]{14} 1$`, 'm'));
    expect((await tree.call('worktrees.info', {}))!).toMatchObject({ ahead: 1, uncommitted: 0, applied: true });
    expect((await refusal(tree.call('worktrees.commit', { message: 'again' }))).message).toMatch(/^Nothing to commit/);

    // Work not applied would be lost: asked first; with force it goes, branch and all.
    writeFileSync(join(made.threadFolder, 'later.txt'), 'not applied\n');
    const refused = await tree.call('worktrees.remove', { force: false });
    expect(refused).toMatchObject({ removed: false, branchDeleted: false, originFolder: person });
    expect(refused.lost).toMatch(/^1 changed file not applied, 1 uncommitted$/);
    expect(existsSync(made.threadFolder)).toBe(true);
    const removed = await tree.call('worktrees.remove', { force: true });
    expect(removed).toEqual({ removed: true, branchDeleted: true, originFolder: person, keptThreads: [thread.id] });
    expect(existsSync(made.threadFolder)).toBe(false);
    expect(git(env.folder, 'branch', '--list', 'deepdesk/feature').trim()).toBe('');
    expect(await tree.call('worktrees.info', {})).toBeNull();
    await tree.close();

    // Its thread is the folder's now: listed, marked, found, readable, told, and it goes on there.
    expect((await origin.call('threads.list', {})).find((t) => t.id === thread.id)).toMatchObject({ removedWorktree: { name: 'feature', branch: 'deepdesk/feature' } });
    expect((await origin.call('threads.search', { query: 'write new.txt' })).map((m) => m.threadId)).toEqual([thread.id]);
    const kept = await origin.call('threads.get', { threadId: thread.id });
    expect(kept.items.map((i) => (i.kind === 'notice' ? i.text : i.kind))).toEqual(['user', 'tool', 'assistant', 'Worktree feature was removed: this thread continues in ' + person.split('/').pop() + '.']);
    env.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/after.txt', content: 'in the folder now\n' } }] }, { text: 'Done.' });
    await origin.call('threads.send', { threadId: thread.id, text: 'write after.txt' });
    await until(async () => !(await origin.call('threads.list', {})).some((t) => t.running) && existsSync(join(env.folder, 'after.txt')), 'the write in the folder');
    const told = env.server.requests.flatMap((r) => r.messages).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    expect(told).toContain(`works in the person's folder ${person} itself`);
    expect(readFileSync(join(env.folder, 'after.txt'), 'utf8')).toBe('in the folder now\n');
    // The person's folder keeps what was applied.
    expect(readFileSync(join(env.folder, 'new.txt'), 'utf8')).toBe('from the agent\n');
    expect(await origin.call('worktrees.canCreate', {})).toMatchObject({ git: true });
  });

  it('removes a worktree whose work was all applied without asking', async () => {
    makeRepository();
    const origin = await open(env.folder);
    const made = await origin.call('worktrees.create', { carry: false });
    expect(made.name).toMatch(/^wt-/);
    const tree = await open(made.threadFolder);
    writeFileSync(join(made.threadFolder, 'b.txt'), 'bee\n');
    expect((await tree.call('worktrees.apply', {})).applied).toEqual(['b.txt']);
    expect(await tree.call('worktrees.remove', { force: false })).toMatchObject({ removed: true });
    expect(existsSync(made.threadFolder)).toBe(false);
  });
});
