// Pending approvals (SPEC §4): saved in SQLite before the person is asked, so a run that
// waits for a decision survives a restart; decided through the window (approvals.decide).

import type Database from 'better-sqlite3';
import { runMigrations, type Migration } from '../../core/backends/store';
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

export type ApprovalExtras = Pick<PendingApproval, 'preview' | 'suggestedRule'>;

interface Waiter {
  resolve(decision: ApprovalDecision): void;
}

export class ApprovalService implements ApprovalBroker {
  private readonly waiters = new Map<string, Waiter>();
  private readonly listeners = new Set<(threadId: string) => void>();
  private readonly stmts;

  constructor(
    db: Database.Database,
    /** Adds the diff preview and the suggested "always allow" rule. */
    private readonly describe: (request: ApprovalRequest) => Promise<ApprovalExtras>,
  ) {
    runMigrations(db, MIGRATIONS);
    this.stmts = {
      get: db.prepare<[string, string], { pending_json: string; decision_json: string | null }>('SELECT pending_json, decision_json FROM approvals WHERE thread_id = ? AND tool_call_id = ?'),
      insert: db.prepare('INSERT OR IGNORE INTO approvals (thread_id, tool_call_id, pending_json, created_at) VALUES (?, ?, ?, ?)'),
      setDecision: db.prepare('UPDATE approvals SET decision_json = ? WHERE thread_id = ? AND tool_call_id = ?'),
      remove: db.prepare('DELETE FROM approvals WHERE thread_id = ? AND tool_call_id = ?'),
      forThread: db.prepare<[string], { pending_json: string }>('SELECT pending_json FROM approvals WHERE thread_id = ? AND decision_json IS NULL ORDER BY created_at, rowid'),
      threads: db.prepare<[], { thread_id: string }>('SELECT DISTINCT thread_id FROM approvals'),
      removeThread: db.prepare('DELETE FROM approvals WHERE thread_id = ?'),
      ids: db.prepare<[string], { tool_call_id: string }>('SELECT tool_call_id FROM approvals WHERE thread_id = ?'),
    };
  }

  onChange(listener: (threadId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const key = keyOf(request.threadId, request.toolCallId);
    const existing = this.stmts.get.get(request.threadId, request.toolCallId);
    if (existing?.decision_json) {
      this.stmts.remove.run(request.threadId, request.toolCallId);
      return JSON.parse(existing.decision_json) as ApprovalDecision;
    }
    if (existing === undefined) {
      const pending: PendingApproval = { ...request, ...(await this.describe(request)), createdAt: new Date().toISOString() };
      this.stmts.insert.run(request.threadId, request.toolCallId, JSON.stringify(pending), pending.createdAt);
      this.changed(request.threadId);
    }
    return new Promise<ApprovalDecision>((resolve, reject) => {
      if (signal.aborted) return reject(new AbortedError());
      // Stop withdraws the question; a shutdown keeps it for the run that resumes after the restart.
      const onAbort = () => {
        this.waiters.delete(key);
        if (!isShutdown(signal)) {
          this.stmts.remove.run(request.threadId, request.toolCallId);
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

  /** The person's decision. Returns false when no such approval is pending. */
  resolve(threadId: string, toolCallId: string, decision: ApprovalDecision): boolean {
    const row = this.stmts.get.get(threadId, toolCallId);
    if (row === undefined || row.decision_json) return false;
    const waiter = this.waiters.get(keyOf(threadId, toolCallId));
    if (waiter) {
      this.waiters.delete(keyOf(threadId, toolCallId));
      this.stmts.remove.run(threadId, toolCallId);
      waiter.resolve(decision);
    } else {
      // Nobody waits yet (the run resumes later): keep the decision for it.
      this.stmts.setDecision.run(JSON.stringify(decision), threadId, toolCallId);
    }
    this.changed(threadId);
    return true;
  }

  pending(threadId: string): PendingApproval[] {
    return this.stmts.forThread.all(threadId).map((r) => JSON.parse(r.pending_json) as PendingApproval);
  }

  /** Tool-call ids of a thread that wait for (or already have) a decision: they re-run on resume. */
  resumable(threadId: string): Set<string> {
    return new Set(this.stmts.ids.all(threadId).map((r) => r.tool_call_id));
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

function keyOf(threadId: string, toolCallId: string): string {
  return `${threadId}\u0000${toolCallId}`;
}
