// Issue 20 (4) through the contract, with the real services and SQLite: files sent with a
// message reach the model as content when it takes them, else are saved to the thread's
// /attachments/ and named; a message queued during a run keeps its files (saved); the
// bytes come back (threads.attachment) after a restart.

import { describe, expect, it } from 'vitest';
import { formatSize } from '../../core/media/kinds';
import { makePdf, makePng } from '../../core/media/testing/fixtures';
import { until, useAppTestEnv, type OpenedApp } from './app-harness.test-support';
import { attachmentsSchema } from '../contract';

const t = useAppTestEnv('deepdesk-attach-app');

/** The app, and a wait for its `count`-th finished run. */
async function open(): Promise<OpenedApp & { done: (count: number) => Promise<void> }> {
  const opened = await t.open();
  const dones = () => opened.events.filter((f) => f.event === 'thread.event' && (f.payload as { event: { type: string } }).event.type === 'done').length;
  return { ...opened, done: async (count) => void (await until(() => dones() >= count, `run ${count} done`)) };
}

const png = makePng(5, 5);
const pdf = makePdf(['only page']);
type WireUser = { role: string; content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> };
const lastUser = (index: number) => (t.server.requests[index]!.messages as WireUser[]).findLast((m) => m.role === 'user')!;

describe('attachments through the app', () => {
  it('an image goes to the model as content, a PDF the model does not take is saved and named; both come back after a restart', async () => {
    t.server.push({ text: 'Got them.' });
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
    await first.close();

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

    t.server.push({ text: 'ok' });
    const { id: filesOnly } = await second.call('threads.create', {});
    await second.call('threads.send', { threadId: filesOnly, text: '', attachments: [{ name: 'spec.pdf', mimeType: 'application/pdf', data: pdf.toString('base64') }] });
    // A message of files alone is titled by their names.
    await expect.poll(async () => (await second.call('threads.get', { threadId: filesOnly })).thread.title).toBe('spec.pdf');
  });

  it('a message with files sent during a run is queued with its files saved, and delivered with their lines', async () => {
    t.server.push({ hang: true, text: 'thinking' }, { text: 'second answer' });
    const { call } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'start' });
    // The first request is in (and hangs) before the second message is sent.
    await expect.poll(() => t.server.requests.length).toBe(1);
    const { queuedId } = await call('threads.send', { threadId: thread.id, text: 'and this', attachments: [{ name: 'dot.png', mimeType: 'image/png', data: png.toString('base64') }] });
    expect(queuedId).toBeDefined();
    const line = `[Attached /attachments/dot.png (image/png, ${png.length} B): read it with read_file]`;
    expect((await call('threads.get', { threadId: thread.id })).queued.map((q) => q.text)).toEqual([`and this\n${line}`]);
    await call('threads.sendQueuedNow', { threadId: thread.id, queuedId: queuedId! });
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).items.flatMap((i) => (i.kind === 'assistant' ? [i.text] : [])), { timeout: 60_000 }).toContain('second answer');
    expect(lastUser(t.server.requests.length - 1).content).toBe(`and this\n${line}`);
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
