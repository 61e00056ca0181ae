// Pending approvals (SPEC §4): saved in SQLite before the person is asked, so a run that
// waits for a decision survives a restart; decided through the window (approvals.decide).

import type Database from 'better-sqlite3';
import { runMigrations, type Migration } from '../../core/backends/store/store';
import { lazyStatements, perConnection } from '../../core/backends/store/store-db';
import type { ApprovalBroker } from '../../core/agent/middleware/approval';
import { isShutdown, type ApprovalDecision, type ApprovalRequest } from '../../core/agent/types';
import { AbortedError } from '../../core/models/errors';
import type { PendingApproval } from '../contract';

const MIGRATIONS: Migration[] = [
  {
    id: 'approvals-001',
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS approvals (
          thread_id TEXT NOT NULL,
          tool_call_id TEXT NOT NULL,
          pending_json TEXT NOT NULL,
          decision_json TEXT,
          created_at TEXT NOT NULL,
          PRIMARY KEY (thread_id, tool_call_id)
        );
      `);
    },
  },
];

export type ApprovalExtras = Pick<PendingApproval, 'preview' | 'suggestedRule' | 'runsOn'>;

interface Waiter {
  resolve(decision: ApprovalDecision): void;
}

/** This store's statements, prepared once per connection (store-db.ts perConnection); none is ever iterated. */
const APPROVAL_STATEMENTS = Symbol('approval_statements');

export class ApprovalService implements ApprovalBroker {
  private readonly waiters = new Map<string, Waiter>();
  private readonly listeners = new Set<(threadId: string) => void>();
  private readonly stmts;

  constructor(
    db: Database.Database,
    /** Adds the diff preview, the suggested "always allow" rule and where a command runs. */
    private readonly describe: (request: ApprovalRequest) => Promise<ApprovalExtras>,
  ) {
    runMigrations(db, MIGRATIONS);
    this.stmts = perConnection(db, APPROVAL_STATEMENTS, () =>
      lazyStatements({
        get: () => db.prepare<[string, string], { pending_json: string; decision_json: string | null }>('SELECT pending_json, decision_json FROM approvals WHERE thread_id = ? AND tool_call_id = ?'),
        insert: () => db.prepare('INSERT OR IGNORE INTO approvals (thread_id, tool_call_id, pending_json, created_at) VALUES (?, ?, ?, ?)'),
        setDecision: () => db.prepare('UPDATE approvals SET decision_json = ? WHERE thread_id = ? AND tool_call_id = ?'),
        remove: () => db.prepare('DELETE FROM approvals WHERE thread_id = ? AND tool_call_id = ?'),
        forThread: () => db.prepare<[string], { pending_json: string }>('SELECT pending_json FROM approvals WHERE thread_id = ? AND decision_json IS NULL ORDER BY created_at, rowid'),
        undecided: () => db.prepare<[string], { tool_call_id: string; pending_json: string }>('SELECT tool_call_id, pending_json FROM approvals WHERE thread_id = ? AND decision_json IS NULL'),
        threads: () => db.prepare<[], { thread_id: string }>('SELECT DISTINCT thread_id FROM approvals'),
        removeThread: () => db.prepare('DELETE FROM approvals WHERE thread_id = ?'),
        ids: () => db.prepare<[string], { tool_call_id: string }>('SELECT tool_call_id FROM approvals WHERE thread_id = ?'),
      }),
    );
  }

  onChange(listener: (threadId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const callKey = callKeyOf(request);
    const key = keyOf(request.threadId, callKey);
    const existing = this.stmts.get.get(request.threadId, callKey);
    if (existing?.decision_json) {
      this.stmts.remove.run(request.threadId, callKey);
      return JSON.parse(existing.decision_json) as ApprovalDecision;
    }
    if (existing === undefined) {
      const pending: PendingApproval = { ...request, ...(await this.describe(request)), createdAt: new Date().toISOString() };
      this.stmts.insert.run(request.threadId, callKey, JSON.stringify(pending), pending.createdAt);
      this.changed(request.threadId);
    }
    return new Promise<ApprovalDecision>((resolve, reject) => {
      if (signal.aborted) return reject(new AbortedError());
      // Stop withdraws the question; a shutdown keeps it for the run that resumes after the restart.
      const onAbort = () => {
        this.waiters.delete(key);
        if (!isShutdown(signal)) {
          this.stmts.remove.run(request.threadId, callKey);
          this.changed(request.threadId);
        }
        reject(new AbortedError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(key, {
        resolve: (decision) => {
          signal.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      });
    });
  }

  /**
   * The person's decision, for the call its events name: the tool-call id, and for a
   * subagent's call the `task` call it runs under (needed only when two subagents' calls
   * share an id). Returns false when no such approval is pending.
   */
  resolve(threadId: string, toolCallId: string, decision: ApprovalDecision, parentToolCallId?: string): boolean {
    const callKey = this.findKey(threadId, toolCallId, parentToolCallId);
    if (callKey === undefined) return false;
    const waiter = this.waiters.get(keyOf(threadId, callKey));
    if (waiter) {
      this.waiters.delete(keyOf(threadId, callKey));
      this.stmts.remove.run(threadId, callKey);
      waiter.resolve(decision);
    } else {
      // Nobody waits yet (the run resumes later): keep the decision for it.
      this.stmts.setDecision.run(JSON.stringify(decision), threadId, callKey);
    }
    this.changed(threadId);
    return true;
  }

  /**
   * The stored key of the undecided approval a window names (without a parent, the only call
   * of that id, or else the thread's own). Undefined when none fits, or more than one does:
   * ids are the model's words, and an answer goes to the call that was shown or nowhere.
   */
  private findKey(threadId: string, toolCallId: string, parentToolCallId?: string): string | undefined {
    const fits = this.stmts.undecided.all(threadId).filter((row) => {
      const pending = JSON.parse(row.pending_json) as PendingApproval;
      return pending.toolCallId === toolCallId && (parentToolCallId === undefined || pending.parentToolCallId === parentToolCallId);
    });
    if (fits.length === 1) return fits[0]!.tool_call_id;
    // Without a parent, the thread's own call of that id (its key is that id alone).
    if (parentToolCallId === undefined) return fits.find((row) => row.tool_call_id === callKeyOf({ toolCallId }))?.tool_call_id;
    return undefined;
  }

  pending(threadId: string): PendingApproval[] {
    return this.stmts.forThread.all(threadId).map((r) => JSON.parse(r.pending_json) as PendingApproval);
  }

  /**
   * Calls of a thread that wait for (or already have) a decision: they re-run on resume. A
   * subagent's is `taskId/id`, and its `task` call (`taskId`) re-runs too, to resume it.
   */
  resumable(threadId: string): Set<string> {
    const keys = new Set<string>();
    for (const { tool_call_id: key } of this.stmts.ids.all(threadId)) {
      const parts = callPathOf(key);
      for (let i = 1; i <= parts.length; i++) keys.add(parts.slice(0, i).join('/'));
    }
    return keys;
  }

  threadsWithApprovals(): string[] {
    return this.stmts.threads.all().map((r) => r.thread_id);
  }

  forgetThread(threadId: string): void {
    this.stmts.removeThread.run(threadId);
  }

  private changed(threadId: string): void {
    for (const l of this.listeners) l(threadId);
  }
}

/**
 * Where a call sits in its thread: its id, under the task calls of the subagents it runs in.
 * Written so that no two paths share a key, whatever the ids (a `/` in one is not a level).
 */
function callKeyOf(request: Pick<ApprovalRequest, 'toolCallId' | 'callPath'>): string {
  return JSON.stringify([...(request.callPath ?? []), request.toolCallId]);
}

/** The task calls and the call of a stored key (a key stored before keys were JSON was joined with `/`). */
function callPathOf(key: string): string[] {
  if (key.startsWith('[')) {
    try {
      const parts: unknown = JSON.parse(key);
      if (Array.isArray(parts) && parts.every((p) => typeof p === 'string')) return parts as string[];
    } catch {
      // Not one of ours: read as the older form.
    }
  }
  return key.split('/');
}

function keyOf(threadId: string, toolCallId: string): string {
  return `${threadId}\u0000${toolCallId}`;
}
