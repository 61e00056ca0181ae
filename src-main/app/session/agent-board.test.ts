// The Agents view's list from the run records (real SQLite): what is shown, in what order,
// runs of a process that died shown as failed, and a finished run gone once its thread is opened.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { newThreadState } from '../../core/agent/types';
import { openDatabase } from '../../core/backends/store/store';
import { ThreadStore } from '../threads/thread-store';
import { AgentBoard } from './agent-board';
import { RunRecords } from '../threads/run-records';
import { CheckpointHistory } from '../../core/checkpoints/history';
import { recorderFor } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';

let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-board-'));
  db = openDatabase(join(dir, 'deepdesk.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function thread(id: string, title: string, folder: string): void {
  new ThreadStore(db).save(newThreadState(id), { folder, title });
}

describe('the Agents view’s list', () => {
  it('says a thread has unreviewed changes until the person marks each of its hunks Reviewed (SPEC §24)', async () => {
    const folder = join(realpathSync(dir), 'project');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    const checkpoints = CheckpointStore.open(dir);
    const recorder = recorderFor(checkpoints, folder);
    await recorder.prepareBaseline();
    await recorder.step({ threadId: 't', messageIndex: 0, messageLine: 'edit', tool: 'write_file' }, ['a.txt'], async () => writeFileSync(join(folder, 'a.txt'), 'ONE\ntwo\nthree\nfour\nFIVE\n'));
    thread('t', 'Edits', folder);
    new RunRecords(db).start('t', folder, process.pid);
    const threads = new ThreadStore(db);
    const history = new CheckpointHistory(checkpoints);
    const board = new AgentBoard(db, { unreviewedOf: (threadId) => history.hasUnreviewed(threadId, threads.reviewedHunks(threadId)) });
    expect(board.list()[0]?.unreviewed).toBe(true);
    const [first, second] = history.threadChanges('t')[0]!.hunks!;
    threads.markReviewed('t', first!.id, true);
    expect(board.list()[0]?.unreviewed).toBe(true);
    threads.markReviewed('t', second!.id, true);
    expect(board.list()[0]?.unreviewed).toBeUndefined();
    // Kept with the thread: another connection reads the same marks.
    expect(new ThreadStore(db).reviewedHunks('t')).toEqual(new Set([first!.id, second!.id]));
    checkpoints.close();
  });

  it('shows a thread’s cost as the ledger prices it now (a price set after its calls reaches them), not the cost its state last saved', () => {
    const state = newThreadState('t');
    new ThreadStore(db).save({ ...state, usage: { ...state.usage, costUsd: 0 } }, { folder: '/p', title: 'Priced later' });
    new RunRecords(db).start('t', '/p', process.pid);
    let price: number | null = null;
    const board = new AgentBoard(db, { costOf: () => price });
    expect(board.list()[0]?.costUsd).toBeUndefined();
    price = 0.42;
    expect(board.list()[0]?.costUsd).toBe(0.42);
  });

  it('shows going runs first (needs you, working, queued), then finished ones not opened since; a dead process’s run is failed, a stopped one stopped', () => {
    const board = new AgentBoard(db, { worktreeOf: (folder) => (folder.endsWith('/wt') ? { name: 'wt', branch: 'deepdesk/wt', originFolder: '/p' } : undefined) });
    const records = new RunRecords(db);
    for (const [id, title, folder] of [['a', 'Alpha', '/p'], ['b', 'Beta', '/p'], ['c', 'Gamma', '/q'], ['d', 'Delta', '/wt'], ['e', 'Epsilon', '/q'], ['f', '', '/q'], ['g', 'Eta', '/q']] as const) thread(id, title, folder);
    records.start('a', '/p', process.pid);
    records.start('b', '/p', process.pid);
    records.setState('b', 'needs-you');
    records.start('c', '/q', process.pid, 'queued');
    records.start('d', '/wt', process.pid);
    records.start('e', '/q', process.pid);
    records.end('e', 'done');
    records.start('g', '/q', process.pid);
    records.end('g', 'stopped');
    // A process that is gone (a child that exited) left its run working.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    records.start('f', '/q', gone);

    const listed = board.list();
    // By state first; within one, the newest first (a and d may have started in the same millisecond).
    expect(listed.map((x) => x.state)).toEqual(['needs-you', 'working', 'working', 'queued', 'failed', 'stopped', 'done']);
    expect(listed.map((x) => x.threadId)).toEqual(['b', ...listed.slice(1, 3).map((x) => x.threadId), 'c', 'f', 'g', 'e']);
    expect(listed.slice(1, 3).map((x) => x.threadId).sort()).toEqual(['a', 'd']);
    expect(listed.find((x) => x.threadId === 'a')).toMatchObject({ title: 'Alpha', folder: '/p', folderName: 'p', sharesFolder: true });
    expect(listed.find((x) => x.threadId === 'd')).toMatchObject({ worktree: { name: 'wt', branch: 'deepdesk/wt' }, sharesFolder: false });
    expect(listed.find((x) => x.threadId === 'f')).toMatchObject({ title: 'Untitled thread', message: expect.stringMatching(/interrupted/) });
    expect(listed.find((x) => x.threadId === 'e')?.endedAt).toBeDefined();

    board.seen('e');
    expect(board.list().map((x) => x.threadId)).not.toContain('e');
    // Its next run shows it again.
    records.start('e', '/q', process.pid);
    expect(board.list().map((x) => x.threadId)).toContain('e');
  });

  it('tells a change made in this process at once', () => {
    const board = new AgentBoard(db);
    let told = 0;
    const stop = board.onChange(() => told++);
    thread('a', 'Alpha', '/p');
    new RunRecords(db).start('a', '/p', process.pid);
    expect(told).toBeGreaterThan(0);
    stop();
    board.close();
  });
});
