// A long thread as the window gets it, through the contract on real SQLite: the recent page
// (bounded in items and bytes), earlier pages by cursor (no duplicates, no gaps, also while
// the thread grows), long outputs cut with the full call on request, the agent's history
// untouched, and idle threads unloaded and loaded again intact.

import { describe, expect, it } from 'vitest';
import { newThreadState, type ThreadState } from '../../core/agent/types';
import { openDatabase } from '../../core/backends/store/store';
import type { ChatMessage } from '../../core/models/types';
import { useAppTestEnv, type Call } from './app-harness.test-support';
import type { DisplayItem, Result } from '../contract';
import { databasePath } from '../base/data-dir';
import { displayItems } from '../threads/display-items';
import { PAGE_LIMITS } from '../threads/thread-page';
import { ThreadStore } from '../threads/thread-store';
import { ThreadService } from '../session/thread-service';
import { ApprovalService } from '../approvals/approval-service';

const env = useAppTestEnv('deepdesk-pages');

/** A conversation of `turns` turns: a question, a command with its output (every 7th one long), an answer. */
function longConversation(turns: number, longOutput = 50_000): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `question ${t}` });
    const id = `call_${t}`;
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id, name: 'execute', args: { command: `echo ${t}` }, argsText: '{}' }] });
    const output = t % 7 === 3 ? `start ${t}\n${'x'.repeat(longOutput)}\nend ${t}` : `out ${t}`;
    messages.push({ role: 'tool', toolCallId: id, toolName: 'execute', content: output });
    messages.push({ role: 'assistant', content: `answer ${t}` });
  }
  return messages;
}

function seed(threadId: string, messages: ChatMessage[], extra: Partial<ThreadState> = {}): void {
  const db = openDatabase(databasePath(env.dataDir));
  try {
    const state = { ...newThreadState(threadId), ...extra };
    state.messages = messages;
    new ThreadStore(db).save(state, { folder: env.folder });
  } finally {
    db.close();
  }
}

/** What identifies an item in the thread, whatever was cut of it. */
function identity(item: DisplayItem): string {
  return `${item.index}:${item.kind}:${item.kind === 'tool' ? item.id : 'text' in item ? item.text : ''}`;
}

/** Every item of the thread, from threads.get back to the start with threads.earlier. */
async function walkBack(call: Call, threadId: string, first: Result<'threads.get'>): Promise<DisplayItem[]> {
  let items = first.items;
  let cursor = first.page.cursor;
  while (cursor > 0) {
    const earlier = await call('threads.earlier', { threadId, cursor });
    expect(earlier.cursor).toBeLessThan(cursor);
    expect(earlier.items.length).toBeGreaterThan(0);
    items = [...earlier.items, ...items];
    cursor = earlier.cursor;
  }
  return items;
}

describe('a long thread in pages', () => {
  it('sends a bounded recent page with absolute indexes, and pages back to the start without duplicates or gaps', async () => {
    const messages = longConversation(2_500);
    // Summarized up to turn 1000: the notice stands where the model's context starts.
    const summarized = { contextStart: 4_000, summary: 'What happened in the first thousand turns.' };
    seed('long', messages, summarized);
    const { call } = await env.open();
    const view = await call('threads.get', { threadId: 'long' });

    expect(view.items.length).toBeLessThanOrEqual(PAGE_LIMITS.maxItems);
    expect(Buffer.byteLength(JSON.stringify(view))).toBeLessThan(2 * 1024 * 1024);
    expect(view.page.cursor).toBeGreaterThan(0);
    // The newest message is the thread's last, by its absolute index.
    expect(view.items.at(-1)).toMatchObject({ kind: 'assistant', text: 'answer 2499', index: messages.length - 1 });
    // The page starts at a person's message or an answer, never between a call and its result.
    expect(messages[view.page.cursor]!.role).not.toBe('tool');
    expect(view.page.turnsBefore).toBe(messages.slice(0, view.page.cursor).filter((m) => m.role === 'user').length);

    const all = await walkBack(call, 'long', view);
    const whole = displayItems({ ...newThreadState('long'), ...summarized, messages });
    expect(all.map(identity)).toEqual(whole.map(identity));
    expect(all.filter((i) => i.kind === 'summary')).toEqual([expect.objectContaining({ index: 4_000, summarizedMessages: 4_000 })]);
  });

  it('bounds a page in bytes too: few items, each long', async () => {
    const messages: ChatMessage[] = Array.from({ length: 60 }, (_, t): ChatMessage[] => [
      { role: 'user', content: `question ${t}` },
      { role: 'assistant', content: `${t} ${'long answer '.repeat(10_000)}` },
    ]).flat();
    seed('wordy', messages);
    const { call } = await env.open();
    const view = await call('threads.get', { threadId: 'wordy' });
    expect(Buffer.byteLength(JSON.stringify(view))).toBeLessThan(2 * 1024 * 1024);
    expect(view.items.length).toBeLessThan(30);
    expect(view.page.cursor).toBeGreaterThan(0);
    expect((await walkBack(call, 'wordy', view)).map(identity)).toEqual(displayItems({ ...newThreadState('wordy'), messages }).map(identity));
  });

  it('pages back without duplicates or gaps while a run adds to the thread', async () => {
    const messages = longConversation(600);
    seed('growing', messages);
    const { call } = await env.open();
    const view = await call('threads.get', { threadId: 'growing' });
    const firstEarlier = await call('threads.earlier', { threadId: 'growing', cursor: view.page.cursor });

    env.server.push({ toolCalls: [{ name: 'ls', args: { path: '/' } }] }, { text: 'grown answer' });
    await call('threads.send', { threadId: 'growing', text: 'grow please' });
    await expect.poll(async () => (await call('threads.get', { threadId: 'growing' })).items.at(-1), { timeout: 60_000 }).toMatchObject({ kind: 'assistant', text: 'grown answer' });

    // The page before the old cursor is what it was; the new items come after the old page.
    const again = await call('threads.earlier', { threadId: 'growing', cursor: view.page.cursor });
    expect(again.items.map(identity)).toEqual(firstEarlier.items.map(identity));
    const grown = await call('threads.get', { threadId: 'growing' });
    const all = await walkBack(call, 'growing', grown);
    const ids = all.map(identity);
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.filter((i) => i.kind === 'user').map((i) => (i.kind === 'user' ? i.text : ''))).toEqual([...Array.from({ length: 600 }, (_, t) => `question ${t}`), 'grow please']);
    // What the window had (old page + items after it) fits what it gets now.
    const oldIds = view.items.map(identity);
    expect(ids.slice(ids.indexOf(oldIds[0]!), ids.indexOf(oldIds[0]!) + oldIds.length)).toEqual(oldIds);
  });

  it('cuts long tool outputs in a page and gives the full call on request; the history keeps it whole', async () => {
    const messages = longConversation(20, 30_000);
    seed('outputs', messages);
    const { call } = await env.open();
    const view = await call('threads.get', { threadId: 'outputs' });
    const cut = view.items.find((i) => i.kind === 'tool' && i.id === 'call_17');
    expect(cut?.kind).toBe('tool');
    if (cut?.kind !== 'tool') return;
    const full = messages[17 * 4 + 2]!.content as string;
    expect(cut.output!.length).toBeLessThan(PAGE_LIMITS.capChars + 100);
    expect(cut.output).toMatch(/^start 17\n/);
    expect(cut.output).toMatch(/\nend 17$/);
    expect(cut.output).toContain(`${(full.length - PAGE_LIMITS.capChars).toLocaleString('en-US')} characters not shown here`);
    expect(cut.omitted).toEqual({ outputChars: full.length - PAGE_LIMITS.capChars, args: false });
    expect(view.items.find((i) => i.kind === 'tool' && i.id === 'call_16')).not.toHaveProperty('omitted');

    const whole = await call('threads.toolCall', { threadId: 'outputs', index: cut.index, toolCallId: 'call_17' });
    expect(whole.output).toBe(full);
    expect(whole.args).toEqual({ command: 'echo 17' });
    await expect(call('threads.toolCall', { threadId: 'outputs', index: cut.index, toolCallId: 'call_16' })).rejects.toThrow(/no longer in this thread/);

    // What goes to the model is untouched: the next request carries the whole output.
    env.server.push({ text: 'ok' });
    await call('threads.send', { threadId: 'outputs', text: 'next' });
    await expect.poll(() => env.server.requests.length, { timeout: 60_000 }).toBe(1);
    expect(env.server.requests[0]!.messages.some((m) => m.role === 'tool' && m.content === full)).toBe(true);
  });

  it('cuts long argument strings too (a big write), keeping them whole in the full call', async () => {
    const content = `${'line\n'.repeat(20_000)}`;
    seed('args', [
      { role: 'user', content: 'write it' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'w1', name: 'write_file', args: { file_path: '/big.txt', content }, argsText: '{}' }] },
      { role: 'tool', toolCallId: 'w1', toolName: 'write_file', content: 'Wrote /big.txt' },
    ]);
    const { call } = await env.open();
    const view = await call('threads.get', { threadId: 'args' });
    const item = view.items.find((i) => i.kind === 'tool');
    expect(item).toMatchObject({ kind: 'tool', output: 'Wrote /big.txt', omitted: { outputChars: 0, args: true } });
    // JSON writes each newline as two characters.
    expect(JSON.stringify(item).length).toBeLessThan(2 * PAGE_LIMITS.capChars + 1_000);
    expect((await call('threads.toolCall', { threadId: 'args', index: 1, toolCallId: 'w1' })).args).toEqual({ file_path: '/big.txt', content });
  });

  it('numbers the person’s messages of any page as the checkpoints do (turnsBefore + their place in the page)', async () => {
    seed('turns', longConversation(1_000));
    const db = openDatabase(databasePath(env.dataDir));
    try {
      const service = serviceOn(db);
      // As the window counts: an earlier page's turns before are the later page's, less its own.
      const users = (items: DisplayItem[]) => items.filter((i) => i.kind === 'user');
      const first = service.get('turns');
      const pages: Array<{ items: DisplayItem[]; turnsBefore: number }> = [{ items: first.items, turnsBefore: first.page.turnsBefore }];
      let cursor = first.page.cursor;
      for (let n = 0; n < 3; n++) {
        const earlier = service.earlier('turns', cursor);
        pages.push({ items: earlier.items, turnsBefore: pages.at(-1)!.turnsBefore - users(earlier.items).length });
        cursor = earlier.cursor;
      }
      expect(service.loadedThreads()).toEqual([]);
      const all = service.userMessages('turns');
      for (const { items, turnsBefore } of pages) {
        users(items).forEach((item, ordinal) => expect(all[turnsBefore + ordinal]).toEqual({ index: item.index, text: item.kind === 'user' ? item.text : '' }));
      }
      // Loaded now (userMessages read it whole): the same pages from memory.
      expect(service.loadedThreads()).toEqual(['turns']);
      expect(service.get('turns')).toEqual(first);
    } finally {
      db.close();
    }
  });

  it('shows a thread saved before person counts were kept, or with a row that does not parse, by loading it', async () => {
    seed('old', longConversation(400));
    const db = openDatabase(databasePath(env.dataDir));
    try {
      const service = serviceOn(db);
      const fromRows = service.get('old');
      expect(service.loadedThreads()).toEqual([]);
      db.prepare("UPDATE threads SET person_count = NULL WHERE id = 'old'").run();
      expect(serviceOn(db).get('old')).toEqual(fromRows);
      db.prepare("UPDATE thread_messages SET message_json = '{' WHERE thread_id = 'old' AND seq = 1500").run();
      const other = serviceOn(db);
      const view = other.get('old');
      expect(other.loadedThreads()).toEqual(['old']);
      // The unreadable row is left out, as loading does; the rest is there.
      expect(view.items.at(-1)).toMatchObject({ kind: 'assistant', text: 'answer 399', index: 1598 });
    } finally {
      db.close();
    }
  });

  it('unloads idle threads it no longer shows and loads them again intact; event numbers go on', async () => {
    for (const id of ['a', 'b', 'c']) seed(id, longConversation(300));
    const db = openDatabase(databasePath(env.dataDir));
    try {
      const service = serviceOn(db);
      // Shown from the rows its page needs: not loaded.
      const first = service.get('a');
      expect(service.loadedThreads()).toEqual([]);
      service.tell('a', { kind: 'restore', display: 'Files were restored.', text: 'The person restored files.' });
      expect(service.loadedThreads()).toEqual(['a']);
      expect(service.get('a').eventSeq).toBe(first.eventSeq + 1);
      // Another thread shown from its rows: none needs to stay loaded.
      service.get('b');
      expect(service.loadedThreads()).toEqual([]);
      // Loaded and opened: it stays while it is the last one; then it goes.
      service.tell('b', { kind: 'restore', display: 'b restored.', text: 'b restored.' });
      service.get('b');
      expect(service.loadedThreads()).toEqual(['b']);
      service.get('c');
      expect(service.loadedThreads()).toEqual([]);

      const reopened = service.get('a');
      expect(service.loadedThreads()).toEqual([]);
      expect(reopened.eventSeq).toBe(first.eventSeq + 1);
      expect(reopened.items.at(-1)).toMatchObject({ kind: 'notice', text: 'Files were restored.', index: 1200 });
      const all = [...reopened.items];
      for (let cursor = reopened.page.cursor; cursor > 0; ) {
        const page = service.earlier('a', cursor);
        all.unshift(...page.items);
        cursor = page.cursor;
      }
      expect(all.filter((i) => i.kind === 'user')).toHaveLength(300);
      expect(all).toHaveLength(300 * 3 + 1);
      // Saving after a reload appends, it does not rewrite or lose the history.
      service.tell('a', { kind: 'restore', display: 'Again.', text: 'Again.' });
      expect(new ThreadStore(db).load('a').messages).toHaveLength(1202);
    } finally {
      db.close();
    }
  });
});

/** The thread service alone on the test's database (no model: nothing runs). */
function serviceOn(db: ReturnType<typeof openDatabase>): ThreadService {
  return new ThreadService({
    db,
    folder: env.folder,
    approvals: new ApprovalService(db, async () => ({})),
    createModel: () => Promise.reject(new Error('no model in this test')),
    rules: () => [],
    subagents: () => [],
    emit: () => undefined,
  });
}
