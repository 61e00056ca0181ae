import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/backends/store/store';
import { newThreadState, type ThreadState } from '../../core/agent/types';
import { ThreadNotFoundError, ThreadStore } from './thread-store';

let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-threads-'));
  db = openDatabase(join(dir, 'deepdesk.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ThreadStore', () => {
  it('round-trips a thread and appends only new messages', () => {
    const store = new ThreadStore(db);
    const state = newThreadState('t1');
    state.messages.push({ role: 'user', content: 'hello there' }, { role: 'assistant', content: 'hi', toolCalls: [{ id: 'c1', name: 'ls', args: {}, argsText: '{}' }] });
    state.todos = [{ content: 'x', status: 'pending' }];
    state.usage.inputTokens = 42;
    store.save(state, { folder: '/proj' });
    state.messages.push({ role: 'tool', toolCallId: 'c1', toolName: 'ls', content: 'No files found' });
    store.save(state, { folder: '/proj' });
    const rows = db.prepare('SELECT seq FROM thread_messages WHERE thread_id = ? ORDER BY seq').all('t1');
    expect(rows).toEqual([{ seq: 0 }, { seq: 1 }, { seq: 2 }]);

    const loaded = new ThreadStore(db).load('t1');
    expect(loaded.messages).toEqual(state.messages);
    expect(loaded.todos).toEqual(state.todos);
    expect(loaded.usage.inputTokens).toBe(42);
    expect(store.get('t1')).toMatchObject({ title: 'hello there', folder: '/proj', messageCount: 3 });
  });

  it("keeps the thread's files one row each, written only when they change, and moves a pre-threads-004 row's files out of its JSON", () => {
    const store = new ThreadStore(db);
    const state = newThreadState('t1');
    const big = 'A'.repeat(200_000);
    state.files.attachments = { files: { '/clip.bin': { content: big, encoding: 'base64', mimeType: 'video/webm', version: 1 } as never } };
    state.files.largeResults = { files: { '/call_1': { content: 'result', encoding: 'utf-8', version: 2 } as never } };
    state.messages.push({ role: 'user', content: 'hi' });
    store.save(state);
    const rowJson = () => (db.prepare('SELECT state_json FROM threads WHERE id = ?').get('t1') as { state_json: string }).state_json;
    expect(rowJson().length).toBeLessThan(2_000);
    // A step later the unchanged attachment is not written again (the sentinel stays).
    db.prepare("UPDATE thread_files SET file_json = json_set(file_json, '$.sentinel', 1) WHERE path = '/clip.bin'").run();
    state.messages.push({ role: 'assistant', content: 'hello' });
    state.files.largeResults = { files: {} };
    store.save(state);
    const rows = db.prepare('SELECT mount, path, file_json FROM thread_files WHERE thread_id = ? ORDER BY path').all('t1') as Array<{ mount: string; path: string; file_json: string }>;
    expect(rows.map((r) => `${r.mount}:${r.path}`)).toEqual(['attachments:/clip.bin']);
    expect(JSON.parse(rows[0]!.file_json).sentinel).toBe(1);
    const loaded = new ThreadStore(db).load('t1');
    expect(loaded.files.attachments?.files['/clip.bin']?.content).toBe(big);
    expect(loaded.files.largeResults.files).toEqual({});

    // A row written before thread_files: its files load, and the next save moves them to rows.
    const legacy = { ...JSON.parse(rowJson()), files: { largeResults: { files: { '/old': { content: 'old', encoding: 'utf-8', version: 1 } } }, history: { files: {} } } };
    db.prepare('UPDATE threads SET state_json = ? WHERE id = ?').run(JSON.stringify(legacy), 't1');
    db.prepare('DELETE FROM thread_files').run();
    const fresh = new ThreadStore(db);
    const old = fresh.load('t1');
    expect(old.files.largeResults.files['/old']?.content).toBe('old');
    fresh.save(old);
    expect(JSON.parse(rowJson()).files).toBeUndefined();
    expect(new ThreadStore(db).load('t1').files.largeResults.files['/old']?.content).toBe('old');
    fresh.delete('t1');
    expect(db.prepare('SELECT COUNT(*) AS n FROM thread_files').get()).toEqual({ n: 0 });
  });

  it('lists, renames and deletes', () => {
    const store = new ThreadStore(db);
    store.save(newThreadState('a'), { title: 'first' });
    store.save(newThreadState('b'), { title: 'second' });
    expect(store.list().map((t) => t.id).sort()).toEqual(['a', 'b']);
    store.rename('a', 'renamed');
    expect(store.get('a')?.title).toBe('renamed');
    expect(store.delete('a')).toBe(true);
    expect(store.exists('a')).toBe(false);
    expect(() => store.load('a')).toThrow(ThreadNotFoundError);
    expect(() => store.rename('a', 'x')).toThrow(ThreadNotFoundError);
  });

  it('opens a thread with a corrupt message row, losing only that row', () => {
    const store = new ThreadStore(db);
    const state = newThreadState('t');
    state.messages.push({ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' });
    store.save(state);
    db.prepare("UPDATE thread_messages SET message_json = '{not json' WHERE seq = 0").run();
    const loaded = new ThreadStore(db).load('t');
    expect(loaded.messages).toEqual([{ role: 'assistant', content: 'two' }]);
    // Saving again rewrites the rows consistently instead of appending after a gap.
    loaded.messages.push({ role: 'user', content: 'three' });
    new ThreadStore(db).save(loaded);
    expect(new ThreadStore(db).load('t').messages.map((m) => m.content)).toEqual(['two', 'three']);
  });

  it('writes again a message that was replaced since the last save (an edited call), and keeps the meter and queue', () => {
    const store = new ThreadStore(db);
    const state = newThreadState('t2');
    const call = { id: 'c1', name: 'execute', args: { command: 'rm -rf build' }, argsText: '{"command":"rm -rf build"}' };
    state.messages.push({ role: 'user', content: 'clean' }, { role: 'assistant', content: '', toolCalls: [call] });
    store.save(state, { folder: '/proj' });
    const edited = { ...call, args: { command: 'rm -rf build/tmp' }, argsText: '{"command":"rm -rf build/tmp"}', originalArgs: call.args };
    state.messages[1] = { role: 'assistant', content: '', toolCalls: [edited] };
    state.messages.push({ role: 'tool', toolCallId: 'c1', toolName: 'execute', content: 'done' });
    state.contextTokens = 12_345;
    state.compactedBefore = 1;
    state.queued = [{ id: 'q1', text: 'and then test', createdAt: '2026-01-01T00:00:00.000Z' }];
    state.mcpLoadedTools = ['mcp__github__create_issue'];
    store.save(state, { folder: '/proj' });

    const loaded = new ThreadStore(db).load('t2');
    expect(loaded.messages).toEqual(state.messages);
    expect(loaded.messages[1]).toMatchObject({ toolCalls: [{ args: { command: 'rm -rf build/tmp' }, originalArgs: { command: 'rm -rf build' } }] });
    expect(loaded.contextTokens).toBe(12_345);
    expect(loaded.compactedBefore).toBe(1);
    expect(loaded.queued).toEqual(state.queued);
    expect(loaded.mcpLoadedTools).toEqual(['mcp__github__create_issue']);
  });

  it('searches the messages of a folder\'s threads: the person\'s and the agent\'s, every word, newest thread first', () => {
    const store = new ThreadStore(db);
    const save = (id: string, folder: string, messages: ThreadState['messages']): void => {
      const state = newThreadState(id);
      state.messages.push(...messages);
      store.save(state, { folder });
    };
    save('vat', '/proj', [
      { role: 'user', content: 'Round the totals' },
      { role: 'assistant', content: 'The VAT rounding happens in invoice.py, line by line.' },
    ]);
    save('tool', '/proj', [
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'ls', args: {}, argsText: '{}' }] },
      { role: 'tool', toolCallId: 'c', toolName: 'ls', content: 'invoice.py rounding.txt' },
    ]);
    save('other', '/elsewhere', [{ role: 'user', content: 'invoice rounding elsewhere' }]);
    save('parts', '/proj', [{ role: 'user', content: [{ type: 'text', text: 'An INVOICE with 100% odd_chars' }] }]);

    expect(store.search('/proj', 'rounding invoice').map((m) => m.threadId)).toEqual(['vat']);
    expect(store.search('/proj', 'vat')[0]).toEqual({ threadId: 'vat', snippet: 'The VAT rounding happens in invoice.py, line by line.' });
    // The match near the start of the snippet, from a word.
    expect(store.search('/proj', 'line by')[0]!.snippet).toBe('…in invoice.py, line by line.');
    // Tool results are not what the person or the agent said; another folder's threads are not listed.
    expect(store.search('/proj', 'rounding.txt')).toEqual([]);
    expect(store.search('/elsewhere', 'ROUNDING').map((m) => m.threadId)).toEqual(['other']);
    // LIKE's own characters are searched for as written; content in parts too.
    expect(store.search('/proj', '100%').map((m) => m.threadId)).toEqual(['parts']);
    expect(store.search('/proj', 'odd_chars').map((m) => m.threadId)).toEqual(['parts']);
    expect(store.search('/proj', 'odd%chars')).toEqual([]);
    expect(store.search('/proj', '   ')).toEqual([]);
  });

  it("searches only what a person can see: never the data of an attached image or file", () => {
    const store = new ThreadStore(db);
    const save = (id: string, messages: ThreadState['messages']): void => {
      const state = newThreadState(id);
      state.messages.push(...messages);
      store.save(state, { folder: '/proj' });
    };
    // Base64 that holds the word searched for (as base64 of any large image holds most short words).
    const data = `iVBORw0KGgo${'A'.repeat(40)}ZebraCrossing${'B'.repeat(40)}`;
    save('image', [{ role: 'user', content: [{ type: 'text', text: 'what is in this picture?\n[Attached road.png (image/png, 2 KB)]' }, { type: 'image', mimeType: 'image/png', data, name: 'road.png' }] }]);
    save('pdf', [{ role: 'user', content: [{ type: 'text', text: 'summarise it' }, { type: 'file', mimeType: 'application/pdf', data: `JVBERi0x${'zebra'.repeat(3)}`, name: 'spec.pdf' }] }]);
    save('said', [{ role: 'user', content: 'a zebra crossing outside' }]);

    expect(store.search('/proj', 'zebra').map((m) => m.threadId)).toEqual(['said']);
    expect(store.search('/proj', 'iVBORw0KGgo')).toEqual([]);
    // The file's name, shown on its chip, is found.
    expect(store.search('/proj', 'road.png').map((m) => m.threadId)).toEqual(['image']);
    // The text beside the image is found, and its snippet is text.
    expect(store.search('/proj', 'picture')[0]).toEqual({ threadId: 'image', snippet: 'what is in this picture? [Attached road.png (image/png, 2 KB)]' });
  });

  // How long it takes is a row of `npm run bench -- --only threads`, not a bound here.
  it('a search of a long history finds one result a thread, up to the limit', () => {
    const store = new ThreadStore(db);
    for (let t = 0; t < 40; t++) {
      const state = newThreadState(`t${t}`);
      for (let i = 0; i < 250; i++) {
        state.messages.push({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} of thread ${t}: ${'lorem ipsum '.repeat(20)}${t === 7 && i === 200 ? ' the needle' : ''}` });
        state.messages.push({ role: 'tool', toolCallId: `c${i}`, toolName: 'read_file', content: 'x'.repeat(4000) });
      }
      store.save(state, { folder: '/big' });
    }
    expect(store.search('/big', 'NEEDLE').map((m) => m.threadId)).toEqual(['t7']);
    // Every thread matches "lorem": one result a thread, however many of its messages match, up to the limit.
    expect(store.search('/big', 'lorem', 10)).toHaveLength(10);
    expect(new Set(store.search('/big', 'lorem ipsum')).size).toBe(40);
    expect(store.search('/big', 'no such words here')).toEqual([]);
  });
});

