// The window's app in the agent host, over its real socket (SPEC §16): a window that closes
// leaves its run going and the next one sees it; two windows on one thread see the same
// events, and an approval answered in one is gone from the other; a host that dies is told
// and replaced.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as pty from 'node-pty';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventFrame, Result, ThreadView } from '../../app/contract';
import { startScriptedServer, type ScriptedServer } from '../../core/models/testing/scripted-server';
import { HostWindow } from './host-window';
import { removeDataDir } from '../../app/host/testing/remove-data-dir';

const repo = resolve(import.meta.dirname, '../../..');
let folder: string;
let dataDir: string;
let server: ScriptedServer;
const opened: HostWindow[] = [];

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before these tests (npm test does)');
});
beforeEach(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-hostwin-')));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-hostwin-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((w) => w.close()));
  await server.close();
  // The host stops once its socket is gone.
  removeDataDir(dataDir, folder);
});

async function open(lines: string[] = []): Promise<HostWindow> {
  const window = await HostWindow.open({
    connect: { dataDir, client: 'test', version: '', env: { ...process.env, DEEPDESK_HOST_IDLE_SECONDS: '1' } },
    window: { folder, overrides: { model: 'openai-compatible:scripted-model', baseUrl: server.url }, mounts: [], mcpConfig: [], cwd: folder, env: { PATH: process.env.PATH ?? '', HOME: folder, OPENAI_API_KEY: '' } },
    onHostGone: (line) => lines.push(line),
  });
  opened.push(window);
  return window;
}

function call<M extends Parameters<HostWindow['handle']>[0]>(window: HostWindow, method: M, params: unknown): Promise<Result<M>> {
  return window.handle(method, params) as Promise<Result<M>>;
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function hostPid(): number {
  const ups = [...readFileSync(join(dataDir, 'host', 'host.log'), 'utf8').matchAll(/host up: pid (\d+)/g)];
  return Number(ups.at(-1)![1]);
}

describe("the window's app in the agent host", () => {
  it('every window on a folder shares its app; one with other serve flags is told they apply until the app is idle, and a later one gets its own', async () => {
    const other = await startScriptedServer();
    const withOtherModel = async (notices: string[] = []) => {
      const window = await HostWindow.open({
        connect: { dataDir, client: 'test', version: '', env: { ...process.env, DEEPDESK_HOST_IDLE_SECONDS: '1' } },
        window: { folder, overrides: { model: 'openai-compatible:other-model', baseUrl: other.url }, mounts: [], mcpConfig: [], cwd: folder, env: { PATH: process.env.PATH ?? '', HOME: folder, OPENAI_API_KEY: '' } },
        onNotice: (notice) => notices.push(notice.message),
      });
      opened.push(window);
      return window;
    };
    try {
      const first = await open();
      const same = await open();
      const { id } = await call(first, 'threads.create', {});
      expect((await call(same, 'threads.list', {})).map((t) => t.id)).toContain(id);
      // Another serve's window while the app is held: the same app (it sees the same threads), and told so.
      const told: string[] = [];
      const sharing = await withOtherModel(told);
      expect((await call(sharing, 'threads.list', {})).map((t) => t.id)).toContain(id);
      expect(told).toContainEqual(expect.stringContaining('is already open in the agent host with other settings'));
      for (const window of [first, same, sharing]) await window.close();
      // Once nothing holds it and nothing runs, the next window's flags are the app's.
      const later: string[] = [];
      const own = await withOtherModel(later);
      expect(later.filter((m) => m.includes('other settings'))).toEqual([]);
      other.push({ text: 'from the other model' });
      const thread = await call(own, 'threads.create', {});
      await call(own, 'threads.send', { threadId: thread.id, text: 'which model?' });
      await waitFor(async () => JSON.stringify(((await call(own, 'threads.get', { threadId: thread.id })) as ThreadView).items).includes('from the other model'), 'the other model’s answer');
      expect(other.requests.at(-1)!.model).toBe('other-model');
      expect(server.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('a window that closes leaves its run going; the next window sees it finish', async () => {
    // The run works until the next window has seen it running (not for a time the steps must fit in).
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    server.push(async () => (await finished, { text: 'finished without a window' }));
    const first = await open();
    const { id } = await call(first, 'threads.create', {});
    await call(first, 'threads.send', { threadId: id, text: 'take your time' });
    await first.close();
    const second = await open();
    const running = (await call(second, 'threads.get', { threadId: id })) as ThreadView;
    expect(running.thread.running).toBe(true);
    finish();
    await waitFor(async () => !((await call(second, 'threads.get', { threadId: id })) as ThreadView).thread.running, 'the run to end');
    const done = (await call(second, 'threads.get', { threadId: id })) as ThreadView;
    expect(JSON.stringify(done.items)).toContain('finished without a window');
  });

  it('two windows on one thread see the same events; an approval answered in one is gone from the other', async () => {
    server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/asked.txt', content: 'yes\n' } }] }, { text: 'written' });
    const one = await open();
    const other = await open();
    const seen: Array<{ one: EventFrame[]; other: EventFrame[] }> = [{ one: [], other: [] }];
    one.onEvent((frame) => seen[0]!.one.push(frame));
    other.onEvent((frame) => seen[0]!.other.push(frame));
    const { id } = await call(one, 'threads.create', {});
    await call(one, 'threads.send', { threadId: id, text: 'write it' });
    await waitFor(async () => ((await call(other, 'threads.get', { threadId: id })) as ThreadView).approvals.length === 1, 'the approval in the other window');
    const [pending] = ((await call(other, 'threads.get', { threadId: id })) as ThreadView).approvals;
    await call(one, 'approvals.decide', { threadId: id, toolCallId: pending!.toolCallId, decision: { type: 'approve' } });
    await waitFor(async () => !((await call(other, 'threads.get', { threadId: id })) as ThreadView).thread.running, 'the run to end');
    expect(((await call(other, 'threads.get', { threadId: id })) as ThreadView).approvals).toEqual([]);
    await expect(call(other, 'approvals.decide', { threadId: id, toolCallId: pending!.toolCallId, decision: { type: 'approve' } })).rejects.toThrow(/no longer pending/);
    expect(readFileSync(join(folder, 'asked.txt'), 'utf8')).toBe('yes\n');
    const threadEvents = (frames: EventFrame[]) => frames.filter((f) => f.event === 'thread.event').map((f) => JSON.stringify(f.payload));
    expect(threadEvents(seen[0]!.other)).toEqual(threadEvents(seen[0]!.one));
    expect(threadEvents(seen[0]!.one).length).toBeGreaterThan(3);
  });

  it('a host that dies is told in one line and replaced; the window works again', async () => {
    const lines: string[] = [];
    const window = await open(lines);
    const first = hostPid();
    process.kill(first, 'SIGKILL');
    await waitFor(() => lines.some((l) => l.includes('is back')), 'the host to be back');
    expect(lines[0]).toMatch(/^the agent host stopped .*starting it again/);
    expect(hostPid()).not.toBe(first);
    const { id } = await call(window, 'threads.create', {});
    expect(typeof id).toBe('string');
  });

  it("deepdesk agents lists a window's working thread, and deepdesk stop stops it", async () => {
    server.push({ hang: true, text: 'working on it' });
    const window = await open();
    const { id } = await call(window, 'threads.create', {});
    await call(window, 'threads.send', { threadId: id, text: 'think hard' });
    const cli = (args: string[]) => execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), ...args, '--data-dir', dataDir], { encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: '' } });
    expect(cli(['agents'])).toMatch(new RegExp(`^${id.slice(0, 8)}\\s+Working\\s+${folder}\\s+think hard$`, 'm'));
    expect(cli(['stop', id])).toBe(`Stopped ${id}.\n`);
    await waitFor(async () => !((await call(window, 'threads.get', { threadId: id })) as ThreadView).thread.running, 'the run to stop');
    expect(cli(['agents'])).toMatch(new RegExp(`^${id.slice(0, 8)}\\s+Stopped\\s`, 'm'));
  });

  it("deepdesk attach follows a window's thread and answers its approval on the terminal; the window's is gone", async () => {
    server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/from-terminal.txt', content: 'ok\n' } }] }, { text: 'written from the terminal' });
    const window = await open();
    const { id } = await call(window, 'threads.create', {});
    await call(window, 'threads.send', { threadId: id, text: 'write it' });
    await waitFor(async () => ((await call(window, 'threads.get', { threadId: id })) as ThreadView).approvals.length === 1, 'the approval in the window');
    const term = pty.spawn(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'attach', id, '--data-dir', dataDir], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '' } as Record<string, string>, cols: 160, rows: 50 });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((done) => term.onExit(({ exitCode }) => done(exitCode)));
    await waitFor(() => screen.includes('Approve?'), 'the terminal to ask');
    expect(screen).toContain('write_file needs approval');
    term.write('y\r');
    expect(await exited).toBe(0);
    expect(screen).toContain('written from the terminal');
    expect(readFileSync(join(folder, 'from-terminal.txt'), 'utf8')).toBe('ok\n');
    expect(((await call(window, 'threads.get', { threadId: id })) as ThreadView).approvals).toEqual([]);
  });

  it("deepdesk attach on a window's thread that the window stops says it was stopped, not done", async () => {
    server.push({ hang: true, text: 'working on it' });
    const window = await open();
    const { id } = await call(window, 'threads.create', {});
    await call(window, 'threads.send', { threadId: id, text: 'think hard' });
    const term = pty.spawn(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'attach', id.slice(0, 8), '--data-dir', dataDir], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '' } as Record<string, string>, cols: 160, rows: 50 });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((done) => term.onExit(({ exitCode }) => done(exitCode)));
    await waitFor(() => screen.includes('> think hard'), 'the thread so far on the terminal');
    await call(window, 'threads.stop', { threadId: id });
    expect(await exited).toBe(0);
    expect(screen).toContain('deepdesk: stopped');
  });

  it("a deepdesk run in the window's folder shows in the window as it goes, and its approval is answered there", async () => {
    server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/from-run.txt', content: 'run\n' } }] }, { text: 'the run wrote it' });
    const window = await open();
    const frames: EventFrame[] = [];
    window.onEvent((frame) => frames.push(frame));
    // A `run` with no terminal to ask on: the window showing its folder answers for it.
    const id = 'run-seen-in-the-window';
    const run = spawn(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'run', '--thread', id, '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, 'write it from the terminal'], {
      env: { ...process.env, OPENAI_API_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let answer = '';
    run.stdout.on('data', (d: Buffer) => (answer += d.toString()));
    const runExit = new Promise<number | null>((done) => run.on('close', done));
    await waitFor(
      async () => ((await call(window, 'threads.get', { threadId: id }).catch(() => undefined)) as ThreadView | undefined)?.approvals.length === 1,
      "the run's approval in the window",
    );
    const view = (await call(window, 'threads.get', { threadId: id })) as ThreadView;
    expect(view.thread.running).toBe(true);
    expect(((await call(window, 'threads.list', {})) as Array<{ id: string; running: boolean }>).find((t) => t.id === id)?.running).toBe(true);
    await expect(call(window, 'threads.send', { threadId: id, text: 'me too' })).rejects.toThrow(/deepdesk run/);
    // Shown as the window's own approvals are: the diff, and "Always allow" (saved when chosen).
    const [asked] = view.approvals;
    expect(asked!.preview).toEqual({ path: '/from-run.txt', before: '', after: 'run\n' });
    expect(asked!.suggestedRule).toBeDefined();
    await call(window, 'approvals.decide', { threadId: id, toolCallId: asked!.toolCallId, decision: { type: 'approve', alwaysAllow: asked!.suggestedRule! } });
    expect(((await call(window, 'settings.get', {})) as { rules: unknown[] }).rules).toContainEqual(asked!.suggestedRule);
    await waitFor(async () => !((await call(window, 'threads.get', { threadId: id })) as ThreadView).thread.running, 'the run to end');
    expect(readFileSync(join(folder, 'from-run.txt'), 'utf8')).toBe('run\n');
    expect(JSON.stringify(((await call(window, 'threads.get', { threadId: id })) as ThreadView).items)).toContain('the run wrote it');
    expect(frames.some((f) => f.event === 'thread.event' && (f.payload as { threadId: string }).threadId === id)).toBe(true);
    expect(await runExit).toBe(0);
    expect(answer).toBe('the run wrote it\n');
  });

  it('deepdesk run --thread on a thread working in a window is refused: a thread never has two runs', async () => {
    server.push({ hang: true, text: 'busy in the window' });
    const window = await open();
    const { id } = await call(window, 'threads.create', {});
    await call(window, 'threads.send', { threadId: id, text: 'work' });
    await waitFor(async () => ((await call(window, 'threads.get', { threadId: id })) as ThreadView).thread.running, 'the window to work');
    let failure = '';
    try {
      execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'run', '--thread', id, '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, 'me too'], {
        encoding: 'utf8',
        env: { ...process.env, OPENAI_API_KEY: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      failure = String((err as { stderr?: string }).stderr);
    }
    expect(failure).toMatch(/^deepdesk run: thread .* is working in a window/);
    await call(window, 'threads.stop', { threadId: id });
  });

  it('refuses a request the contract does not have, checked in the host', async () => {
    const window = await open();
    await expect(window.handle('threads.get' as never, { threadId: 42 })).rejects.toThrow(/invalid params/);
  });
});
