// A set of candidates as SQLite keeps it (SPEC §21): the set and its members from before any
// candidate runs, why one did not start, and the host's ranking, read back by another connection
// (the window's, or a later host's) — and a set stored before this version keeps its members.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/backends/store/store';
import { runMigrations } from '../../core/backends/store/store-db';
import type { CandidateSetJson } from '../contract/agents';
import { CandidateRecords } from './candidate-records';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-candidates-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ranking = (setId: string): CandidateSetJson => ({
  type: 'candidates',
  setId,
  goal: 'make sum add',
  budgetUsd: 0.5,
  spentUsd: 0.01,
  ranking: [
    {
      rank: 1,
      threadId: 't-2',
      model: 'openai:gpt-x',
      agent: null,
      worktree: { name: 'w2', path: '/w2', branch: 'deepdesk/w2' },
      state: 'achieved',
      verifyPassed: true,
      verify: [{ command: 'node check.js', exitCode: 0, passed: true, outputTail: 'ok' }],
      criteria: [],
      contradictedClaims: [],
      change: { files: 1, lines: 2, newDependencies: 0 },
      costUsd: 0.01,
    },
  ],
});

describe('CandidateRecords', () => {
  it('keeps the set, its members and its ranking for another connection to read', () => {
    const path = join(dir, 'deepdesk.db');
    const db = openDatabase(path);
    const records = new CandidateRecords(db);
    records.addSet({ setId: 's1', goal: 'make sum add', budgetUsd: 0.5 }, [
      { threadId: 't-1', index: 0, model: null, agent: 'claude-code' },
      { threadId: 't-2', index: 1, model: 'openai:gpt-x', agent: null },
    ]);
    records.noteNotStarted('t-1', 'Stopped before model call: the budget is spent');
    expect(records.set('s1')).toMatchObject({ goal: 'make sum add', budgetUsd: 0.5, rankedAt: null });
    expect(records.set('s1')!.ranking).toBeUndefined();
    records.keepRanking(ranking('s1'));
    db.close();

    const again = new CandidateRecords(openDatabase(path));
    expect(again.members('s1')).toEqual([
      { threadId: 't-1', setId: 's1', index: 0, count: 2, goal: 'make sum add', model: null, agent: 'claude-code', notStarted: 'Stopped before model call: the budget is spent' },
      { threadId: 't-2', setId: 's1', index: 1, count: 2, goal: 'make sum add', model: 'openai:gpt-x', agent: null, notStarted: null },
    ]);
    expect(again.set('s1')!.ranking).toEqual(ranking('s1'));
    expect(again.set('s1')!.rankedAt).not.toBeNull();
    expect(again.set('nope')).toBeUndefined();
  });

  it('a stored ranking that does not read back is not shown as one', () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const records = new CandidateRecords(db);
    records.addSet({ setId: 's1', goal: 'g', budgetUsd: null }, [{ threadId: 't', index: 0, model: null, agent: null }]);
    for (const bad of ['{not json', JSON.stringify({ ...ranking('s1'), ranking: [{ rank: 'first' }] })]) {
      db.prepare('UPDATE candidate_sets SET ranking = ? WHERE set_id = ?').run(bad, 's1');
      expect(records.set('s1')!.ranking).toBeUndefined();
      expect(records.set('s1')!.goal).toBe('g');
    }
  });

  it("a set stored before sets were kept keeps its members (no model, started)", () => {
    const db = openDatabase(join(dir, 'deepdesk.db'));
    runMigrations(db, [
      {
        id: 'candidate-members-001',
        up: (d) => d.exec('CREATE TABLE IF NOT EXISTS candidate_members (thread_id TEXT PRIMARY KEY, set_id TEXT NOT NULL, idx INTEGER NOT NULL, count INTEGER NOT NULL, goal TEXT NOT NULL)'),
      },
    ]);
    db.prepare('INSERT INTO candidate_members VALUES (?, ?, ?, ?, ?)').run('old', 'old-set', 0, 1, 'old goal');
    const records = new CandidateRecords(db);
    expect(records.members('old-set')).toEqual([{ threadId: 'old', setId: 'old-set', index: 0, count: 1, goal: 'old goal', model: null, agent: null, notStarted: null }]);
    expect(records.set('old-set')).toBeUndefined();
  });
});
