// The Agents view's list (SPEC §16): every thread whose run is going, waiting for the person
// or queued, and every one that finished since it was last opened — of every folder and every
// process sharing the data folder, read from the run records. Changes made in this process are
// told at once; another process's (the agent host's, the desktop app's) are noticed by a
// cheap look at the records every second while someone listens.

import { GOAL_STATES, type GoalState } from '../../core/goals/goal';
import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import { isSshFolder, sshTargetLabel } from '../../core/backends/remote/ssh-target';
import type { AgentDto, AgentState, AgentWorktreeDto, SandboxPlaceDto } from '../contract';
import { folderLocationName, sshFolderLocation } from '../places/folder-location';
import { ThreadStore } from '../threads/thread-store';
import { GOING_STATES, onRunRecordsChanged, RunRecords, type RunRecord, type RunState } from '../threads/run-records';
import { CandidateRecords } from '../threads/candidate-records';

const POLL_MS = 1_000;

/** A run's recorded state as the Agents view and `deepdesk agents` name it (SPEC §16): one interrupted by its process's end failed. */
const SHOWN_AS: Record<RunState, AgentState> = {
  queued: 'queued',
  working: 'working',
  'needs-you': 'needs-you',
  budget: 'budget',
  done: 'done',
  stopped: 'stopped',
  failed: 'failed',
  interrupted: 'failed',
};

export function agentStateOf(state: RunState): AgentState {
  return SHOWN_AS[state];
}

/** Needs you first, then working, queued, and the finished ones; the newest first within each. */
const ORDER: Record<AgentState, number> = { 'needs-you': 0, budget: 0, working: 1, queued: 2, failed: 3, stopped: 4, done: 5 };

export interface AgentBoardOptions {
  /** The worktree a thread's folder lies in (app/worktrees), if any. */
  worktreeOf?: (folder: string) => AgentWorktreeDto | undefined;
  /** The provider's sandbox a thread's folder runs in (app/sandboxes), if any. */
  sandboxOf?: (folder: string) => SandboxPlaceDto | undefined;
  /** What a thread's calls cost at the prices known now (the ledger's; null: none priced), or undefined when the ledger has none of its calls: then the cost its state last saved. */
  costOf?: (threadId: string) => number | null | undefined;
  /** Whether the thread changed files in hunks the person has not marked Reviewed (SPEC §24). */
  unreviewedOf?: (threadId: string) => boolean;
}

interface ThreadRow {
  title: string;
  folder: string;
  cost: number | null;
  goal_state: string | null;
  agent: unknown;
}

export class AgentBoard {
  private readonly records: RunRecords;
  private readonly candidates: CandidateRecords;
  private readonly threads: ThreadStore;
  private readonly thread: Database.Statement<[string], ThreadRow>;
  private readonly signature: Database.Statement<[], { sig: string | null }>;
  private readonly listeners = new Set<() => void>();
  private stopLocal: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSignature: string | null = null;

  constructor(
    db: Database.Database,
    private readonly options: AgentBoardOptions = {},
  ) {
    this.records = new RunRecords(db);
    this.candidates = new CandidateRecords(db);
    // Its tables exist before any folder was opened in this data folder.
    this.threads = new ThreadStore(db);
    this.thread = db.prepare(`SELECT title, folder, json_extract(state_json, '$.usage.costUsd') AS cost, goal_state, json_extract(state_json, '$.externalAgent.label') AS agent FROM threads WHERE id = ?`);
    // Over the rows the view shows only (the table keeps every thread's latest run): a row that
    // changes state, starts or is seen changes it; so does a Reviewed mark.
    this.signature = db.prepare(
      `SELECT ifnull((SELECT group_concat(thread_id || ':' || state || ':' || started_at || ':' || ifnull(seen_at, '') || ':' || ifnull(ended_at, ''), ',') FROM host_runs
       WHERE state IN ('queued', 'working', 'needs-you', 'budget') OR seen_at IS NULL OR seen_at < ended_at), '') || ';' || (SELECT count(*) FROM thread_reviewed_hunks) AS sig`,
    );
  }

  list(): AgentDto[] {
    const records = this.records.shown();
    // A set of candidates shows whole while any of it does: one seen and finished stays beside
    // the others (the person compares them), not only the ones still going.
    const listed = new Set(records.map((r) => r.threadId));
    for (const record of [...records]) {
      const set = this.candidates.get(record.threadId)?.setId;
      if (set === undefined) continue;
      for (const member of this.candidates.members(set)) {
        if (listed.has(member.threadId)) continue;
        const run = this.records.get(member.threadId);
        if (run === undefined) continue;
        listed.add(member.threadId);
        records.push(run);
      }
    }
    const shown = records.flatMap((record) => {
      const thread = this.thread.get(record.threadId);
      return thread === undefined ? [] : [{ record, thread }];
    });
    const goingPerFolder = new Map<string, number>();
    for (const { record } of shown) if (GOING_STATES.includes(record.state)) goingPerFolder.set(record.folder, (goingPerFolder.get(record.folder) ?? 0) + 1);
    return shown
      .map(({ record, thread }) => this.agent(record, thread, (goingPerFolder.get(record.folder) ?? 0) > 1))
      .sort((a, b) => ORDER[a.state] - ORDER[b.state] || b.startedAt.localeCompare(a.startedAt) || a.threadId.localeCompare(b.threadId));
  }

  /** The folder of a thread (its run's, else the thread's own), or undefined when there is no such thread. */
  folderOf(threadId: string): string | undefined {
    return this.threads.get(threadId)?.folder;
  }

  /** The person opened the thread: a finished run of it leaves the list. */
  seen(threadId: string): void {
    this.records.seen(threadId);
  }

  /** Told (coalesced by the caller) whenever the list may have changed. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.watch();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.unwatch();
    };
  }

  close(): void {
    this.listeners.clear();
    this.unwatch();
  }

  private agent(record: RunRecord, thread: ThreadRow, sharesFolder: boolean): AgentDto {
    const state = SHOWN_AS[record.state];
    const worktree = isSshFolder(record.folder) ? undefined : this.options.worktreeOf?.(record.folder);
    const sandbox = worktree === undefined ? undefined : this.options.sandboxOf?.(record.folder);
    const ledgerCost = this.options.costOf?.(record.threadId);
    const member = this.candidates.get(record.threadId);
    return {
      threadId: record.threadId,
      title: thread.title || 'Untitled thread',
      folder: record.folder,
      folderName: folderName(record.folder),
      ...(worktree ? { worktree } : {}),
      ...(sandbox ? { sandbox } : {}),
      state,
      startedAt: record.startedAt,
      ...(record.endedAt !== null && !GOING_STATES.includes(record.state) ? { endedAt: record.endedAt } : {}),
      ...costField(ledgerCost === undefined ? thread.cost : ledgerCost),
      ...(record.message !== null && (state === 'failed' || state === 'done' || state === 'budget') ? { message: record.message } : {}),
      sharesFolder: sharesFolder && GOING_STATES.includes(record.state) && worktree === undefined,
      // A goal its failed run left `paused` is not said beside `Failed` (as if it went on): the run's failure is its state.
      ...(thread.goal_state !== null && isGoalState(thread.goal_state) && !(state === 'failed' && thread.goal_state === 'paused') ? { goalState: thread.goal_state } : {}),
      ...(typeof thread.agent === 'string' && thread.agent !== '' ? { agent: thread.agent } : {}),
      ...(this.options.unreviewedOf?.(record.threadId) === true ? { unreviewed: true } : {}),
      ...(member !== undefined ? { candidateSet: { id: member.setId, index: member.index, count: member.count, goal: member.goal, ...(member.model !== null ? { model: member.model } : {}) } } : {}),
    };
  }

  private watch(): void {
    this.lastSignature = this.signature.get()?.sig ?? null;
    this.stopLocal = onRunRecordsChanged(() => this.changed());
    this.timer = setInterval(() => {
      // Runs of a process that died are marked interrupted here too (RunRecords.shown).
      this.records.interruptDead();
      const now = this.signature.get()?.sig ?? null;
      if (now !== this.lastSignature) this.changed();
    }, POLL_MS);
    this.timer.unref();
  }

  private unwatch(): void {
    this.stopLocal?.();
    this.stopLocal = undefined;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private changed(): void {
    this.lastSignature = this.signature.get()?.sig ?? null;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // One window's trouble is not another's.
      }
    }
  }
}

function folderName(folder: string): string {
  if (!isSshFolder(folder)) return basename(folder) || folder;
  try {
    const location = sshFolderLocation(folder);
    return `${folderLocationName(location)} (${sshTargetLabel(location.target)})`;
  } catch {
    return folder;
  }
}

function costField(cost: number | null): { costUsd?: number } {
  return typeof cost === 'number' && cost > 0 ? { costUsd: cost } : {};
}

function isGoalState(value: string): value is GoalState {
  return (GOAL_STATES as readonly string[]).includes(value);
}
