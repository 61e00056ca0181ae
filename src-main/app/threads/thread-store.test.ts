import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/backends/store';
import { newThreadState } from '../../core/agent/types';
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
    store.save(state, { folder: '/proj' });

    const loaded = new ThreadStore(db).load('t2');
    expect(loaded.messages).toEqual(state.messages);
    expect(loaded.messages[1]).toMatchObject({ toolCalls: [{ args: { command: 'rm -rf build/tmp' }, originalArgs: { command: 'rm -rf build' } }] });
    expect(loaded.contextTokens).toBe(12_345);
    expect(loaded.compactedBefore).toBe(1);
    expect(loaded.queued).toEqual(state.queued);
  });
});
