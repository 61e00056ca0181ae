// Checkpoints for the window (SPEC §6, §8, §24): the Changes region's files and their hunks
// (who wrote each, the person's Reviewed marks), restoring to before a user message (files
// only, or files and conversation), undoing the latest restore, reverting one file or hunk. User messages are named by their ordinal among the
// thread's user messages, which the window knows even for a message it has only just sent.
// Every restore that changed files is told to the agent on its next request (a note).

import type { PendingNote } from '../../core/agent/notes';
import { CheckpointHistory, type FileChange } from '../../core/checkpoints/history';
import type { FolderSource } from '../../core/checkpoints/folder-source';
import { recorderFor, type CheckpointRecorder } from '../../core/checkpoints/recorder';
import type { RestoreOutcome, Resolution } from '../../core/checkpoints/restore';
import { restoreNote, type RestoreNoteOptions } from '../../core/agent/restore-note';
import { firstLine } from '../../core/agent/middleware/checkpoints';
import { sensitiveWrite } from '../../core/agent/permissions/sensitive-writes';
import type { CheckpointStore } from '../../core/checkpoints/store';
import { toVirtual, type Checkpoint } from '../../core/checkpoints/types';
import { ContractError } from '../contract';
import type { ChangedFile, RestoreResult, RewindResult, ThreadChanges } from '../contract/checkpoints';
import type { ThreadStore } from '../threads/thread-store';

export interface UserMessageRef {
  /** Index in the thread's messages. */
  index: number;
  text: string;
}

/** What checkpoints need of the thread's conversation (the thread service provides it). */
export interface ThreadConversation {
  /** Keeps a note for the thread's next model request. */
  tell(threadId: string, note: Omit<PendingNote, 'id' | 'createdAt'>): void;
  /** Why the conversation cannot be rewound now (the thread runs), or null. */
  rewindBlocker(threadId: string): string | null;
  rewind(threadId: string, index: number, record: { checkpointId: string | null; checkpointSeq: number }): void;
  putBack(threadId: string, checkpointId: string): 'put-back' | 'continued' | 'none';
  /** The rewinds in force: checkpoints up to `checkpointSeq` answering messages from `index` on answered messages that are gone. */
  rewinds(threadId: string): Array<{ index: number; checkpointSeq: number }>;
}

export interface CheckpointsServiceOptions {
  store: CheckpointStore;
  /** The recorder of the folder's session (it records every step's changes). */
  recorder?: CheckpointRecorder;
  /** The folder's path, or the source of a remote folder (its files over its connection). */
  folder: string | FolderSource;
  /** The thread's user messages, oldest first. */
  userMessages: (threadId: string) => UserMessageRef[];
  /** A restore, undo or revert changed this thread's checkpoints. */
  onChange: (threadId: string) => void;
  conversation: ThreadConversation;
  /** The person's Reviewed marks, kept with the thread. */
  threads: Pick<ThreadStore, 'reviewedHunks' | 'markReviewed'>;
  /** Other agents' configuration in a folder (their vendors'): a change there is marked sensitive. */
  agentConfig?: readonly string[];
  /** Another agent's display name (`Claude Code`) for the name its lines are recorded with (`claude-code`). */
  agentLabel?: (name: string) => string;
}

export class CheckpointsService {
  readonly recorder: CheckpointRecorder;
  private readonly history: CheckpointHistory;

  constructor(private readonly options: CheckpointsServiceOptions) {
    this.recorder = options.recorder ?? recorderFor(options.store, options.folder);
    this.history = new CheckpointHistory(options.store);
  }

  changes(threadId: string): ThreadChanges {
    const reviewed = this.options.threads.reviewedHunks(threadId);
    const files = this.history.threadChanges(threadId).map((f) => toDto(f, reviewed, this.options));
    const undo = this.history.undoableRestore(threadId);
    let turn: number | null = null;
    if (undo?.messageIndex != null) {
      const at = this.options.userMessages(threadId).findIndex((m) => m.index === undo.messageIndex);
      turn = at >= 0 ? at : null;
    }
    return { files, undo: undo ? { checkpointId: undo.id, turn } : null };
  }

  async restoreToMessage(threadId: string, turn: number, resolution: Resolution = 'ask'): Promise<RestoreResult> {
    const message = this.message(threadId, turn);
    const outcome = await this.history.restoreToMessage(threadId, message.index, firstLine(message.text), resolution, this.gone(threadId));
    this.tell(threadId, outcome, { kind: 'restore' });
    return this.report(threadId, outcome);
  }

  /**
   * Files and conversation: restores the files as restoreToMessage does (the same conflict
   * handling), then rewinds the conversation to before that message. Refused while the
   * thread runs. The result carries the message's text, for the message box.
   */
  async rewindToMessage(threadId: string, turn: number, resolution: Resolution = 'ask'): Promise<RewindResult> {
    const blocked = this.options.conversation.rewindBlocker(threadId);
    if (blocked !== null) throw new ContractError(blocked, 'failed');
    const message = this.message(threadId, turn);
    const outcome = await this.history.restoreToMessage(threadId, message.index, firstLine(message.text), resolution, this.gone(threadId));
    if (outcome !== null && !outcome.applied) return { ...this.report(threadId, outcome), rewound: false };
    // A run may have started while the files were restored.
    const late = this.options.conversation.rewindBlocker(threadId);
    if (late !== null) {
      this.tell(threadId, outcome, { kind: 'restore' });
      this.report(threadId, outcome);
      throw new ContractError(`The files were restored, but the conversation was not: ${late}`, 'failed');
    }
    const checkpoint = outcome?.checkpoint;
    this.options.conversation.rewind(threadId, message.index, { checkpointId: checkpoint?.id ?? null, checkpointSeq: checkpoint?.seq ?? this.latestSeq(threadId) });
    this.tell(threadId, outcome, { kind: 'restore', conversation: 'rewound' });
    return { ...this.report(threadId, outcome), rewound: true, text: typedText(message.text) };
  }

  async undoRestore(threadId: string, checkpointId: string, resolution: Resolution = 'ask'): Promise<RestoreResult> {
    const checkpoint = this.history.get(checkpointId);
    if (!checkpoint || checkpoint.threadId !== threadId || checkpoint.kind !== 'restore') throw new ContractError('that restore is not part of this thread', 'not_found');
    const outcome = await this.history.undoRestore(checkpointId, resolution);
    // The conversation a restore rewound comes back with its files, if the thread has not gone on since.
    const conversation = outcome.applied ? this.options.conversation.putBack(threadId, checkpointId) : 'none';
    this.tell(threadId, outcome, { kind: 'undo', ...(conversation !== 'none' ? { conversation: conversation === 'put-back' ? 'put-back' : 'not-put-back' } : {}) });
    return { ...this.report(threadId, outcome), ...(conversation !== 'none' ? { conversationRestored: conversation === 'put-back' } : {}) };
  }

  async revertFile(threadId: string, path: string, resolution: Resolution = 'ask'): Promise<RestoreResult> {
    const outcome = await this.history.revertFile(threadId, path, resolution);
    this.tell(threadId, outcome, { kind: 'revert' });
    return this.report(threadId, outcome);
  }

  /** Puts back one hunk; while the thread runs, once the step going on has ended (never under it). */
  async revertHunk(threadId: string, path: string, hunkId: string, resolution: Resolution = 'ask'): Promise<RestoreResult> {
    const outcome = await this.history.revertHunk(threadId, path, hunkId, resolution);
    if (outcome === null) throw new ContractError('that change is no longer there', 'not_found');
    this.tell(threadId, outcome, { kind: 'revert', hunk: outcome.hunk });
    return this.report(threadId, outcome);
  }

  markReviewed(threadId: string, hunkId: string, reviewed: boolean): void {
    this.options.threads.markReviewed(threadId, hunkId, reviewed);
    this.options.onChange(threadId);
  }

  /** With the thread: its checkpoints, and the content only they kept. */
  deleteThread(threadId: string): void {
    this.history.deleteThread(threadId);
  }

  collectGarbage(): void {
    this.history.collectGarbage();
  }

  private message(threadId: string, turn: number): UserMessageRef {
    const message = this.options.userMessages(threadId)[turn];
    if (!message) throw new ContractError(`this thread has no user message ${turn + 1}`, 'not_found');
    return message;
  }

  /** The agent's steps that answered messages a rewind took out of the conversation. */
  private gone(threadId: string): (c: Checkpoint) => boolean {
    const rewinds = this.options.conversation.rewinds(threadId);
    return (c) => rewinds.some((r) => c.seq <= r.checkpointSeq && c.messageIndex !== null && c.messageIndex >= r.index);
  }

  private latestSeq(threadId: string): number {
    return this.options.store.checkpointsOfThread(threadId).at(-1)?.seq ?? 0;
  }

  /** Tells the agent what a restore that changed files did. */
  private tell(threadId: string, outcome: RestoreOutcome | null, options: RestoreNoteOptions): void {
    if (outcome === null) return;
    const note = restoreNote(this.history, outcome, options);
    if (note !== null) this.options.conversation.tell(threadId, note);
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


function toDto(f: FileChange, reviewed: ReadonlySet<string>, { agentConfig, agentLabel }: Pick<CheckpointsServiceOptions, 'agentConfig' | 'agentLabel'>): ChangedFile {
  const { hunks, ...file } = f;
  const path = toVirtual(f.path);
  const contents = f.before !== undefined || f.after !== undefined ? { before: f.before ?? null, after: f.after ?? null } : undefined;
  const sensitive = f.type === 'i' ? null : sensitiveWrite(path, contents, agentConfig);
  const named = (h: NonNullable<FileChange['hunks']>[number]) => (agentLabel ? h.authors.map((a) => (a.agent !== undefined ? { ...a, agent: agentLabel(a.agent) } : a)) : h.authors);
  return { ...file, path, ...(hunks ? { hunks: hunks.map((h) => ({ ...h, authors: named(h), reviewed: reviewed.has(h.id) })) } : {}), ...(sensitive ? { sensitive } : {}) };
}

/** What the person typed: a sent message without the files its @-mentions attached (see mention-attachments). */
function typedText(text: string): string {
  const start = text.search(/\n\n<attached_file path="/);
  return start < 0 ? text : text.slice(0, start);
}
