// Issue 20 (4) through the contract, with the real services and SQLite: files sent with a
// message reach the model as content when it takes them, else are saved to the thread's
// /attachments/ and named; a message queued during a run keeps its files (saved); the
// bytes come back (threads.attachment) after a restart.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatSize } from '../core/media/kinds';
import { makePdf, makePng } from '../core/media/testing/fixtures';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';
import { createApp, type App } from './app';
import { attachmentsSchema, type EventFrame, type MethodName, type Params, type Result } from './contract';
import { FileSecretStore } from './settings/file-secret-store';

let folder: string;
let dataDir: string;
let server: ScriptedServer;
const apps: App[] = [];

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-attach-app-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-attach-app-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await server.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

type Call = <M extends MethodName>(m: M, p: Params<M>) => Promise<Result<M>>;

async function open(): Promise<{ app: App; call: Call; done: (count: number) => Promise<void> }> {
  const app = await createApp({
    folder,
    dataDir,
    secrets: new FileSecretStore(dataDir),
    transport: 'web',
    overrides: { model: 'openai-compatible:scripted-model', baseUrl: server.url },
    env: { ...process.env, OPENAI_API_KEY: '' },
  });
  apps.push(app);
  let dones = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  app.onEvent((frame: EventFrame) => {
    if (frame.event !== 'thread.event' || (frame.payload as { event: { type: string } }).event.type !== 'done') return;
    dones++;
    for (const w of waiters.filter((w) => dones >= w.count)) w.resolve();
  });
  const done = (count: number) => new Promise<void>((resolve) => (dones >= count ? resolve() : waiters.push({ count, resolve })));
  return { app, call: (method, params) => app.handle(method, params) as Promise<Result<typeof method>>, done };
}

const png = makePng(5, 5);
const pdf = makePdf(['only page']);
type WireUser = { role: string; content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> };
const lastUser = (index: number) => (server.requests[index]!.messages as WireUser[]).findLast((m) => m.role === 'user')!;

describe('attachments through the app', () => {
  it('an image goes to the model as content, a PDF the model does not take is saved and named; both come back after a restart', async () => {
    server.push({ text: 'Got them.' });
    const first = await open();
    const thread = await first.call('threads.create', {});
    await first.call('threads.send', {
      threadId: thread.id,
      text: 'see these',
      attachments: [
        { name: 'dot.png', mimeType: 'image/png', data: png.toString('base64') },
        { name: 'spec.pdf', mimeType: 'application/pdf', data: pdf.toString('base64') },
      ],
    });
    await first.done(1);
    const user = lastUser(0);
    expect(Array.isArray(user.content)).toBe(true);
    const parts = user.content as Exclude<WireUser['content'], string>;
    expect(parts.find((p) => p.type === 'image_url')?.image_url?.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
    const text = parts.flatMap((p) => (p.text !== undefined ? [p.text] : [])).join('\n');
    expect(text).toContain('see these');
    expect(text).toContain(`[Attached /attachments/spec.pdf (application/pdf, ${formatSize(pdf.length)}): read it with read_file]`);
    await first.app.close();
    apps.splice(apps.indexOf(first.app), 1);

    const second = await open();
    const view = await second.call('threads.get', { threadId: thread.id });
    const item = view.items.find((i) => i.kind === 'user')!;
    expect(item).toMatchObject({ kind: 'user', text: 'see these' });
    // The lines naming the files are not part of the thread's title.
    expect(view.thread.title).toBe('see these');
    expect(item.kind === 'user' && item.attachments?.map((a) => [a.name, a.path])).toEqual([
      ['spec.pdf', '/attachments/spec.pdf'],
      ['dot.png', undefined],
    ]);
    expect((await second.call('threads.attachment', { threadId: thread.id, index: item.index, name: 'dot.png' })).data).toBe(png.toString('base64'));
    expect(await second.call('threads.attachment', { threadId: thread.id, index: item.index, name: 'spec.pdf' })).toEqual({ mimeType: 'application/pdf', data: pdf.toString('base64') });
    await expect(second.call('threads.attachment', { threadId: thread.id, index: item.index, name: 'nope.png' })).rejects.toThrow(/not in this thread/);

    server.push({ text: 'ok' });
    const { id: filesOnly } = await second.call('threads.create', {});
    await second.call('threads.send', { threadId: filesOnly, text: '', attachments: [{ name: 'spec.pdf', mimeType: 'application/pdf', data: pdf.toString('base64') }] });
    // A message of files alone is titled by their names.
    await expect.poll(async () => (await second.call('threads.get', { threadId: filesOnly })).thread.title).toBe('spec.pdf');
  });

  it('a message with files sent during a run is queued with its files saved, and delivered with their lines', async () => {
    server.push({ hang: true, text: 'thinking' }, { text: 'second answer' });
    const { call } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'start' });
    // The first request is in (and hangs) before the second message is sent.
    await expect.poll(() => server.requests.length).toBe(1);
    const { queuedId } = await call('threads.send', { threadId: thread.id, text: 'and this', attachments: [{ name: 'dot.png', mimeType: 'image/png', data: png.toString('base64') }] });
    expect(queuedId).toBeDefined();
    const line = `[Attached /attachments/dot.png (image/png, ${png.length} B): read it with read_file]`;
    expect((await call('threads.get', { threadId: thread.id })).queued.map((q) => q.text)).toEqual([`and this\n${line}`]);
    await call('threads.sendQueuedNow', { threadId: thread.id, queuedId: queuedId! });
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).items.flatMap((i) => (i.kind === 'assistant' ? [i.text] : [])), { timeout: 15_000 }).toContain('second answer');
    expect(lastUser(server.requests.length - 1).content).toBe(`and this\n${line}`);
  });

  it('bounds what one message may carry', () => {
    const one = { name: 'a.bin', mimeType: '', data: 'AAAA' };
    expect(attachmentsSchema.safeParse(Array.from({ length: 10 }, () => one)).success).toBe(true);
    expect(attachmentsSchema.safeParse(Array.from({ length: 11 }, () => one)).success).toBe(false);
    const nineMb = { ...one, data: 'A'.repeat(Math.ceil((9 * 1024 * 1024) / 3) * 4) };
    expect(attachmentsSchema.safeParse([nineMb, nineMb]).success).toBe(true);
    expect(attachmentsSchema.safeParse([nineMb, nineMb, nineMb]).error?.issues[0]?.message).toMatch(/may not exceed 20 MB in all/);
  });
});
