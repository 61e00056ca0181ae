// The window's terminals and approval modes through the contract, with the real app:
// real SQLite, real ptys, the scripted model server.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive, listProcesses } from '../../core/process/process-tree';
import { startScriptedServer, type ScriptedServer } from '../../core/models/testing/scripted-server';
import { createApp, type App } from './folder-app';
import { parseRequest, type EventFrame, type MethodName, type Params, type Result } from '../contract';
import { FileSecretStore } from '../settings/file-secret-store';

let folder: string;
let dataDir: string;
let home: string;
let server: ScriptedServer;
const apps: App[] = [];

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-tm-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-tm-data-'));
  home = mkdtempSync(join(tmpdir(), 'deepdesk-tm-home-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await server.close();
  for (const dir of [folder, dataDir, home]) rmSync(dir, { recursive: true, force: true });
});

async function open() {
  const app = await createApp({
    folder,
    dataDir,
    secrets: new FileSecretStore(dataDir),
    transport: 'web',
    overrides: { model: 'openai-compatible:scripted-model', baseUrl: server.url },
    env: { ...process.env, OPENAI_API_KEY: '', HOME: home },
  });
  apps.push(app);
  const events: EventFrame[] = [];
  app.onEvent((frame) => events.push(frame));
  /** As a transport does: validate the frame, then handle it. */
  const call = async <M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> => {
    const parsed = parseRequest({ id: 1, method, params });
    return app.handle(parsed.method, parsed.params as never) as Promise<Result<M>>;
  };
  return { app, call, events };
}

const cmdline = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};
/** This process's children, but for the login shell asked for PATH once per process (slow where an rc file is). */
const children = (): number[] => listProcesses().filter((p) => p.ppid === process.pid && !cmdline(p.pid).includes('__DEEPDESK_LOGIN_PATH__')).map((p) => p.pid);

async function until(probe: () => boolean | Promise<boolean>, what: string, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not met in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const isDone = (threadId: string) => (e: EventFrame) =>
  e.event === 'thread.event' && (e.payload as { threadId: string; event: { type: string } }).threadId === threadId && (e.payload as { event: { type: string } }).event.type === 'done';

describe('terminals through the contract', () => {
  it('made-up thread ids start no shell: every terminal method is refused', async () => {
    const { call } = await open();
    const before = children();
    for (const threadId of ['made-up', 'a'.repeat(300), '__proto__']) {
      await expect(call('terminal.attach', { threadId })).rejects.toThrow(/not found/);
      await expect(call('terminal.input', { threadId, data: 'touch pwned\r' })).rejects.toThrow(/not found/);
      await expect(call('terminal.resize', { threadId, cols: 80, rows: 24 })).rejects.toThrow(/not found/);
      await expect(call('terminal.ack', { threadId, bytes: 5 })).rejects.toThrow(/not found/);
      await expect(call('terminal.list', { threadId })).rejects.toThrow(/not found/);
      await expect(call('terminal.attach', { threadId, terminalId: 'shell' })).rejects.toThrow(/not found/);
    }
    await expect(call('terminal.attach', { threadId: 'x', terminalId: '../../etc' as 'shell' })).rejects.toThrow(/terminal id/);
    expect(children()).toEqual(before);
    expect(existsSync(join(folder, 'pwned'))).toBe(false);
  });

  it('a real thread\'s shell starts on attach and ends when the thread is deleted', async () => {
    const { call, events } = await open();
    const thread = await call('threads.create', {});
    const before = children();
    await call('terminal.attach', { threadId: thread.id });
    await call('terminal.input', { threadId: thread.id, data: 'echo shell-$((7*6))\r' });
    await until(() => events.some((e) => e.event === 'terminal.data' && (e.payload as { data: string }).data.includes('shell-42')), 'shell output');
    const started = children().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    await call('threads.delete', { threadId: thread.id });
    await until(() => !isProcessAlive(started[0]!), 'shell closed with its thread');
    await expect(call('terminal.attach', { threadId: thread.id })).rejects.toThrow(/not found/);
  });

  it('closing the app ends every shell', async () => {
    const { app, call } = await open();
    const before = children();
    for (let i = 0; i < 3; i++) {
      const thread = await call('threads.create', {});
      await call('terminal.attach', { threadId: thread.id });
    }
    const started = children().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(3);
    await app.close();
    apps.splice(apps.indexOf(app), 1);
    await until(() => started.every((pid) => !isProcessAlive(pid)), 'shells ended at shutdown');
  });

  it('an agent command gets a view of its own: listed, shown as typed, live, and typed into', async () => {
    server.push({ toolCalls: [{ name: 'execute', args: { command: `read -p 'Name? ' n; echo "hi $n"` } }] }, { text: 'greeted' });
    const { call, events } = await open();
    const thread = await call('threads.create', {});
    await call('settings.update', { rules: [{ tools: ['execute'], decision: 'allow' }] });
    await call('threads.send', { threadId: thread.id, text: 'greet' });
    const prompt = (e: EventFrame) => e.event === 'terminal.data' && /^Name\? /m.test((e.payload as { data: string }).data);
    await until(() => events.some(prompt), 'prompt shown');
    const [shell, view] = await call('terminal.list', { threadId: thread.id });
    expect(shell).toMatchObject({ kind: 'shell', running: false });
    expect(view).toMatchObject({ kind: 'command', command: `read -p 'Name? ' n; echo "hi $n"`, running: true });
    expect(events.some((e) => e.event === 'terminal.changed')).toBe(true);
    await call('terminal.input', { threadId: thread.id, terminalId: view!.id, data: 'Ada\r' });
    await until(() => events.some(isDone(thread.id)), 'run done');
    const { buffer } = await call('terminal.attach', { threadId: thread.id, terminalId: view!.id });
    expect(buffer).toContain(`$ read -p 'Name? ' n; echo "hi $n"`);
    expect(buffer).toContain('hi Ada');
    expect(buffer).not.toContain('__deepdesk');
    const items = (await call('threads.get', { threadId: thread.id })).items;
    expect(items.find((i) => i.kind === 'tool')).toMatchObject({ output: expect.stringContaining('hi Ada') });
  });
});

describe('approval modes through the contract', () => {
  it('starts at ask, not yet chosen; auto is refused without a sandbox with the reason; the choice is saved per folder', async () => {
    const first = await open();
    const state = await first.call('mode.get', {});
    expect(state).toMatchObject({ mode: 'ask', chosen: false, sandboxNoticeShown: false });
    if (!state.sandbox.available) {
      expect(state.sandbox.reason).toBeTruthy();
      await expect(first.call('mode.set', { mode: 'auto' })).rejects.toThrow(/auto mode needs a sandbox/);
    }
    expect(await first.call('mode.set', { mode: 'plan' })).toMatchObject({ mode: 'plan', chosen: true });
    expect(first.events.some((e) => e.event === 'mode.changed' && (e.payload as { mode: string }).mode === 'plan')).toBe(true);
    await first.call('mode.sandboxNoticeShown', {});
    await first.app.close();
    apps.splice(apps.indexOf(first.app), 1);

    const second = await open();
    expect(await second.call('mode.get', {})).toMatchObject({ mode: 'plan', chosen: true, sandboxNoticeShown: true });
    await expect(second.call('mode.set', { mode: 'yolo' as 'ask' })).rejects.toThrow(/invalid params/);
    const other = mkdtempSync(join(tmpdir(), 'deepdesk-tm-other-'));
    try {
      const app = await createApp({ folder: other, dataDir, secrets: new FileSecretStore(dataDir), transport: 'web', env: { ...process.env, HOME: home } });
      apps.push(app);
      expect(await app.handle('mode.get', {})).toMatchObject({ mode: 'ask', chosen: false });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('the offer of modes: shown once, then dismissed for the folder (nothing chosen), in every window', async () => {
    const first = await open();
    expect(await first.call('mode.get', {})).toMatchObject({ chosen: false, offerShown: false, offerDismissed: false });
    expect(await first.call('mode.offer', { event: 'shown' })).toMatchObject({ offerShown: true, offerDismissed: false, chosen: false });
    expect(await first.call('mode.offer', { event: 'dismissed' })).toMatchObject({ mode: 'ask', offerShown: true, offerDismissed: true, chosen: false });
    expect(first.events.some((e) => e.event === 'mode.changed' && (e.payload as { offerDismissed: boolean }).offerDismissed)).toBe(true);
    await expect(first.call('mode.offer', { event: 'later' as 'shown' })).rejects.toThrow(/invalid params/);
    await first.app.close();
    apps.splice(apps.indexOf(first.app), 1);
    const second = await open();
    expect(await second.call('mode.get', {})).toMatchObject({ mode: 'ask', chosen: false, offerShown: true, offerDismissed: true });
  });

  it('plan refuses a write without asking; switching to edit lets the next one run', async () => {
    server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/plan.txt', content: 'x\n' } }] },
      { text: 'planned' },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/edit.txt', content: 'y\n' } }] },
      { text: 'edited' },
    );
    const { call, events } = await open();
    const thread = await call('threads.create', {});
    await call('mode.set', { mode: 'plan' });
    await call('threads.send', { threadId: thread.id, text: 'write' });
    await until(() => events.some(isDone(thread.id)), 'first run');
    expect(existsSync(join(folder, 'plan.txt'))).toBe(false);
    expect(events.some((e) => e.event === 'approvals.changed')).toBe(false);
    const tool = (await call('threads.get', { threadId: thread.id })).items.find((i) => i.kind === 'tool');
    expect(tool).toMatchObject({ output: 'Error: plan mode is read-only; ask the user to switch modes to make changes' });

    await call('mode.set', { mode: 'edit' });
    const doneBefore = events.filter(isDone(thread.id)).length;
    await call('threads.send', { threadId: thread.id, text: 'write again' });
    await until(() => events.filter(isDone(thread.id)).length > doneBefore, 'second run');
    expect(readFileSync(join(folder, 'edit.txt'), 'utf8')).toBe('y\n');
    expect(events.some((e) => e.event === 'approvals.changed')).toBe(false);
  });
});

describe('the project folder is the person’s', () => {
  it('opening it, every mode, sandboxed commands and checkpoints create nothing in it', async () => {
    writeFileSync(join(folder, 'README.md'), 'hello\n');
    const listing = (): string[] => readdirSync(folder).sort();
    const before = listing();
    const { call, events } = await open();
    const thread = await call('threads.create', {});
    const runs = (): number => events.filter(isDone(thread.id)).length;
    for (const mode of ['ask', 'edit', 'plan', 'auto'] as const) {
      if (mode === 'auto' && !(await call('mode.get', {})).sandbox.available) continue;
      await call('mode.set', { mode });
      const calls =
        mode === 'auto' || mode === 'plan'
          ? [{ name: 'execute', args: { command: 'ls -A; cat README.md' } }]
          : [
              { name: 'ls', args: { path: '/' } },
              { name: 'read_file', args: { file_path: '/README.md' } },
            ];
      server.push({ toolCalls: calls }, { text: `done in ${mode}` });
      const done = runs();
      await call('threads.send', { threadId: thread.id, text: `look around in ${mode}` });
      await until(() => runs() > done, `the ${mode} run`);
      expect(listing()).toEqual(before);
    }
    expect(existsSync(join(folder, '.deepdesk'))).toBe(false);
  });
});
