// A restore is told to the agent (the issue "the model is not told about a restore"), and
// the window's second restore choice, "files and conversation", through the app's contract
// with the real services, SQLite and the scripted model server: what the model receives is
// what is asserted.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../core/models/testing/scripted-server';
import { useAppTestEnv, type Call, type OpenedApp } from '../window/app-harness.test-support';
import type { Result } from '../contract';

const t = useAppTestEnv('deepdesk-notes');

async function open(): Promise<OpenedApp> {
  const opened = await t.open();
  // Writes run without asking: these tests are about what happens after them.
  await opened.call('mode.set', { mode: 'edit' });
  return opened;
}

/** Sends a message and waits until the run it started has ended. */
async function ask(call: Call, threadId: string, text: string): Promise<void> {
  const before = t.server.requests.length;
  await call('threads.send', { threadId, text });
  await expect
    .poll(async () => t.server.requests.length > before && !(await call('threads.get', { threadId })).thread.running, { timeout: 60_000 })
    .toBe(true);
}

function textOf(message: RecordedRequest['messages'][number]): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

/** The notes about restores the model received in a request, in order. */
function restoreNotes(request: RecordedRequest): string[] {
  return request.messages.filter((m) => m.role === 'user' && textOf(m).includes('<system-reminder>')).map(textOf);
}

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

describe('a restore from the window is told to the agent', () => {
  it('the next request carries a note listing what was restored and to when; an undo and a per-file Revert likewise; each note once', async () => {
    t.server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/notes.txt', content: 'one\n' } }] },
      { text: 'Wrote the notes.' },
      { text: 'Understood, the notes are gone.' },
      { text: 'Understood, the notes are back.' },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/extra.txt', content: 'extra\n' } }] },
      { text: 'Wrote extra.' },
      { text: 'Understood, extra is gone.' },
    );
    const { call } = await open();
    const thread = await call('threads.create', {});
    await ask(call, thread.id, 'Write notes\nwith some detail');
    expect(readFileSync(join(t.folder, 'notes.txt'), 'utf8')).toBe('one\n');
    expect(restoreNotes(t.server.requests.at(-1)!)).toEqual([]);

    const restored = await call('checkpoints.restoreToMessage', { threadId: thread.id, turn: 0 });
    expect(restored).toMatchObject({ applied: true, restored: 1 });
    expect(existsSync(join(t.folder, 'notes.txt'))).toBe(false);

    await ask(call, thread.id, 'What is there now?');
    const afterRestore = t.server.requests.at(-1)!;
    const [note] = restoreNotes(afterRestore);
    expect(restoreNotes(afterRestore)).toHaveLength(1);
    expect(note).toContain("to before the user message 'Write notes'");
    expect(note).toMatch(ISO);
    expect(note).toMatch(/\/notes\.txt: deleted/);
    // The note comes before the person's new message.
    const texts = afterRestore.messages.map(textOf);
    expect(texts.indexOf(note!)).toBeLessThan(texts.indexOf('What is there now?'));

    await call('checkpoints.undoRestore', { threadId: thread.id, checkpointId: restored.checkpointId! });
    expect(readFileSync(join(t.folder, 'notes.txt'), 'utf8')).toBe('one\n');
    await ask(call, thread.id, 'And now?');
    const afterUndo = restoreNotes(t.server.requests.at(-1)!);
    // Delivered once: the first note is still there once (it is history now), and the undo's follows it.
    expect(afterUndo).toHaveLength(2);
    expect(afterUndo[0]).toBe(note);
    expect(afterUndo[1]).toMatch(/undid the restore/i);
    expect(afterUndo[1]).toMatch(/\/notes\.txt: re-created/);

    await ask(call, thread.id, 'Write extra');
    expect(existsSync(join(t.folder, 'extra.txt'))).toBe(true);
    await call('checkpoints.revertFile', { threadId: thread.id, path: '/extra.txt' });
    expect(existsSync(join(t.folder, 'extra.txt'))).toBe(false);
    await ask(call, thread.id, 'Is extra there?');
    const afterRevert = restoreNotes(t.server.requests.at(-1)!);
    expect(afterRevert).toHaveLength(3);
    expect(afterRevert[2]).toMatch(/\/extra\.txt: deleted/);
    expect(afterRevert[2]).not.toContain('/notes.txt');
  });

  it('the conversation shows the note as a notice, also after a restart', async () => {
    t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/notes.txt', content: 'one\n' } }] }, { text: 'Wrote the notes.' });
    const first = await open();
    const thread = await first.call('threads.create', {});
    await ask(first.call, thread.id, 'Write notes');
    await first.call('checkpoints.restoreToMessage', { threadId: thread.id, turn: 0 });
    const notice = (await first.call('threads.get', { threadId: thread.id })).items.filter((i) => i.kind === 'notice');
    expect(notice).toHaveLength(1);
    expect(JSON.stringify(notice[0])).toContain('/notes.txt');
    // The person's messages are still only the one they sent.
    expect((await first.call('threads.get', { threadId: thread.id })).items.filter((i) => i.kind === 'user')).toHaveLength(1);
    await first.close();

    const second = await open();
    const items = (await second.call('threads.get', { threadId: thread.id })).items;
    expect(items.filter((i) => i.kind === 'notice')).toHaveLength(1);
    expect(items.filter((i) => i.kind === 'user')).toHaveLength(1);
  });
});

describe('restoring files and conversation', () => {
  it('rewinds the thread to before the message, durably: the next request lacks the rewound messages, also after reopening', async () => {
    t.server.push(
      { text: 'First answer.' },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/b.txt', content: 'beta\n' } }] },
      { text: 'Second answer, wrote b.' },
      { text: 'A fresh answer.' },
    );
    writeFileSync(join(t.folder, 'ctx.md'), 'attached context\n');
    const first = await open();
    const thread = await first.call('threads.create', {});
    await ask(first.call, thread.id, 'First question');
    // The mentioned file is attached to the message; the box gets back what the person typed.
    await ask(first.call, thread.id, 'Second question @/ctx.md\nwith a second line');
    expect(existsSync(join(t.folder, 'b.txt'))).toBe(true);

    const result = await first.call('checkpoints.rewindToMessage', { threadId: thread.id, turn: 1 });
    expect(result).toMatchObject({ applied: true, restored: 1, text: 'Second question @/ctx.md\nwith a second line' });
    expect(existsSync(join(t.folder, 'b.txt'))).toBe(false);
    const users = (view: Result<'threads.get'>) => view.items.flatMap((i) => (i.kind === 'user' ? [i.text] : []));
    const view = await first.call('threads.get', { threadId: thread.id });
    expect(users(view)).toEqual(['First question']);
    expect(JSON.stringify(view.items)).not.toContain('Second answer');
    await first.close();

    const second = await open();
    const reopened = await second.call('threads.get', { threadId: thread.id });
    expect(users(reopened)).toEqual(['First question']);
    expect(JSON.stringify(reopened.items)).not.toContain('Second answer');
    await ask(second.call, thread.id, 'Another question');
    const request = t.server.requests.at(-1)!;
    // The restore's note names the message it went back to before; nothing else of it is left.
    const [note] = restoreNotes(request);
    expect(note).toContain("to before the user message 'Second question @/ctx.md'");
    expect(note).toMatch(/\/b\.txt: deleted/);
    expect(note).toMatch(/conversation was rewound/);
    const sent = JSON.stringify(request.messages.filter((m) => !textOf(m).includes('<system-reminder>')));
    expect(sent).toContain('First question');
    expect(sent).toContain('First answer.');
    expect(sent).toContain('Another question');
    expect(sent).not.toContain('Second question');
    expect(sent).not.toContain('Second answer');
    expect(sent).not.toContain('beta');
    expect(sent).not.toContain('attached context');
  });

  it('Undo restore right after a rewind puts back the files and the conversation', async () => {
    t.server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/b.txt', content: 'beta\n' } }] },
      { text: 'Wrote b.' },
      { text: 'Continuing.' },
    );
    const { call } = await open();
    const thread = await call('threads.create', {});
    await ask(call, thread.id, 'Write b');
    const result = await call('checkpoints.rewindToMessage', { threadId: thread.id, turn: 0 });
    expect((await call('threads.get', { threadId: thread.id })).items.filter((i) => i.kind === 'user')).toHaveLength(0);
    const changes = await call('checkpoints.changes', { threadId: thread.id });
    expect(changes.undo?.checkpointId).toBe(result.checkpointId);

    const undone = await call('checkpoints.undoRestore', { threadId: thread.id, checkpointId: result.checkpointId! });
    expect(undone).toMatchObject({ applied: true, conversationRestored: true });
    expect(readFileSync(join(t.folder, 'b.txt'), 'utf8')).toBe('beta\n');
    const view = await call('threads.get', { threadId: thread.id });
    expect(view.items.flatMap((i) => (i.kind === 'user' ? [i.text] : []))).toEqual(['Write b']);
    expect(JSON.stringify(view.items)).toContain('Wrote b.');

    await ask(call, thread.id, 'Go on');
    const sent = t.server.requests.at(-1)!;
    expect(JSON.stringify(sent.messages)).toContain('Wrote b.');
    const notes = restoreNotes(sent);
    expect(notes).toHaveLength(2);
    expect(notes[1]).toMatch(/\/b\.txt: re-created/);
  });

  it('after a rewind, restoring to before a later message undoes only what came after it', async () => {
    t.server.push(
      { text: 'Hello.' },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/p.txt', content: 'v1\n' } }] },
      { text: 'Wrote p.' },
      { toolCalls: [{ name: 'edit_file', args: { file_path: '/p.txt', old_string: 'v1', new_string: 'v2' } }] },
      { text: 'Edited p.' },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/q.txt', content: 'q\n' } }] },
      { text: 'Wrote q.' },
    );
    const { call } = await open();
    const thread = await call('threads.create', {});
    await ask(call, thread.id, 'Hello');
    await ask(call, thread.id, 'Write p');
    await ask(call, thread.id, 'Edit p');
    expect(readFileSync(join(t.folder, 'p.txt'), 'utf8')).toBe('v2\n');
    await call('checkpoints.rewindToMessage', { threadId: thread.id, turn: 1 });
    expect(existsSync(join(t.folder, 'p.txt'))).toBe(false);
    // The same place in the conversation, said differently: its message indexes are used again.
    await ask(call, thread.id, 'Write q instead');
    expect(existsSync(join(t.folder, 'q.txt'))).toBe(true);
    const restored = await call('checkpoints.restoreToMessage', { threadId: thread.id, turn: 1 });
    expect(restored).toMatchObject({ applied: true, restored: 1 });
    expect(existsSync(join(t.folder, 'q.txt'))).toBe(false);
    expect(existsSync(join(t.folder, 'p.txt'))).toBe(false);
  });

  it('is refused while the thread is running, and changes nothing', async () => {
    t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/b.txt', content: 'beta\n' } }] }, { hang: true, text: 'thinking' });
    const { call } = await open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'Write b' });
    await expect.poll(() => existsSync(join(t.folder, 'b.txt')), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(2);
    await expect(call('checkpoints.rewindToMessage', { threadId: thread.id, turn: 0 })).rejects.toThrow(/working|running/i);
    expect(existsSync(join(t.folder, 'b.txt'))).toBe(true);
    await call('threads.stop', { threadId: thread.id });
    expect((await call('threads.get', { threadId: thread.id })).items.filter((i) => i.kind === 'user')).toHaveLength(1);
  });
});
