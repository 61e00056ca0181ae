// Checkpoints for the window (SPEC §6, §8): the Changes region's files, restoring to
// before a user message, undoing the latest restore and reverting one file. User messages
// are named by their ordinal among the thread's user messages, which the window knows
// even for a message it has only just sent.

import { CheckpointHistory, type FileChange } from '../../core/checkpoints/history';
import { recorderFor, type CheckpointRecorder } from '../../core/checkpoints/recorder';
import type { RestoreOutcome, Resolution } from '../../core/checkpoints/restore';
import type { CheckpointStore } from '../../core/checkpoints/store';
import { toVirtual } from '../../core/checkpoints/types';
import { ContractError } from '../contract';
import type { ChangedFile, RestoreResult, ThreadChanges } from '../contract/checkpoints';

export interface UserMessageRef {
  /** Index in the thread's messages. */
  index: number;
  text: string;
}

export interface CheckpointsServiceOptions {
  store: CheckpointStore;
  folder: string;
  /** The thread's user messages, oldest first. */
  userMessages: (threadId: string) => UserMessageRef[];
  /** A restore, undo or revert changed this thread's checkpoints. */
  onChange: (threadId: string) => void;
}

export class CheckpointsService {
  readonly recorder: CheckpointRecorder;
  private readonly history: CheckpointHistory;

  constructor(private readonly options: CheckpointsServiceOptions) {
    this.recorder = recorderFor(options.store, options.folder);
    this.history = new CheckpointHistory(options.store);
  }

  changes(threadId: string): ThreadChanges {
    const files = this.history.threadChanges(threadId).map(toDto);
    const undo = this.history.undoableRestore(threadId);
    let turn: number | null = null;
    if (undo?.messageIndex != null) {
      const at = this.options.userMessages(threadId).findIndex((m) => m.index === undo.messageIndex);
      turn = at >= 0 ? at : null;
    }
    return { files, undo: undo ? { checkpointId: undo.id, turn } : null };
  }

  async restoreToMessage(threadId: string, turn: number, resolution: Resolution = 'ask'): Promise<RestoreResult> {
    const message = this.options.userMessages(threadId)[turn];
    if (!message) throw new ContractError(`this thread has no user message ${turn + 1}`, 'not_found');
    const outcome = await this.history.restoreToMessage(threadId, message.index, firstLine(message.text), resolution);
    return this.report(threadId, outcome);
  }

  async undoRestore(threadId: string, checkpointId: string, resolution: Resolution = 'ask'): Promise<RestoreResult> {
    const checkpoint = this.history.get(checkpointId);
    if (!checkpoint || checkpoint.threadId !== threadId || checkpoint.kind !== 'restore') throw new ContractError('that restore is not part of this thread', 'not_found');
    return this.report(threadId, await this.history.undoRestore(checkpointId, resolution));
  }

  async revertFile(threadId: string, path: string, resolution: Resolution = 'ask'): Promise<RestoreResult> {
    return this.report(threadId, await this.history.revertFile(threadId, path, resolution));
  }

  /** With the thread: its checkpoints, and the content only they kept. */
  deleteThread(threadId: string): void {
    this.history.deleteThread(threadId);
  }

  collectGarbage(): void {
    this.history.collectGarbage();
  }

  private report(threadId: string, outcome: RestoreOutcome | null): RestoreResult {
    if (outcome === null) return { applied: true, restored: 0, conflicts: [], skipped: [] };
    if (outcome.applied) this.options.onChange(threadId);
    const virtual = (items: Array<{ path: string; reason: string; refused?: true }>) => items.map((c) => ({ path: toVirtual(c.path), reason: c.reason, ...(c.refused ? { refused: true } : {}) }));
    return {
      applied: outcome.applied,
      restored: outcome.restored.length,
      conflicts: virtual(outcome.conflicts),
      skipped: virtual(outcome.skipped),
      ...(outcome.checkpoint ? { checkpointId: outcome.checkpoint.id } : {}),
    };
  }
}

function toDto(f: FileChange): ChangedFile {
  return { ...f, path: toVirtual(f.path) };
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').trim();
}
