// What the CLI and the window ask of the checkpoint history: a thread's checkpoints, the
// diff of one, the net changes of a thread, restores (to before a checkpoint or a user
// message, one file, undoing a restore), deleting a thread's history and the size bound.

import { changeHunks, unifiedHunks } from '../text/unified-diff';
import { hunkLines, reviewHunks, revertHunks, type ReviewHunk } from './hunks';
import { lineAuthors } from './line-authors';
import { storedText } from './stored-text';
import { recorderFor } from './recorder';
import { signsFolder } from './scan';
import { restoreCheckpoints, type RestoreOutcome, type RestoreRequest, type Resolution } from './restore';
import type { CheckpointStore } from './store';
import { changeStatus, type Change, type ChangeStatus, type Checkpoint, type CheckpointEntry, type FileState } from './types';

/** Text of before/after sent with a thread's changes, in total (the rest: counts only). */
const MAX_CONTENT_CHARS = 8 * 1024 * 1024;

/** Default size bound of the blob store per data folder (DEEPDESK_CHECKPOINTS_MAX_MB overrides). */
export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024 * 1024;

export interface CheckpointSummary extends Checkpoint {
  files: number;
}

export interface FileChange {
  path: string;
  status: ChangeStatus;
  /** f: file, l: symlink, d: folder, i: inside an ignored folder (only noted). */
  type: FileState['type'];
  added: number;
  removed: number;
  binary: boolean;
  before?: string;
  after?: string;
  /** A text file's change cut into hunks, with who wrote each (sent with the texts). */
  hunks?: ReviewHunk[];
}

/** What the thread changed in one path: the state before its first change and after its last, and those changes' place in the folder's log. */
interface NetOfThread {
  folder: string;
  first: FileState | null;
  last: FileState | null;
  firstSeq: number;
  lastSeq: number;
}

export class CheckpointHistory {
  constructor(readonly store: CheckpointStore) {}

  /** A thread's checkpoints, oldest first: the agent's steps and the restores (the person's are not the thread's). */
  list(threadId: string): CheckpointSummary[] {
    return this.threadCheckpoints(threadId).map((c) => ({ ...c, files: this.store.entries(c).length }));
  }

  get(id: string): Checkpoint | undefined {
    return this.store.checkpoint(id);
  }

  /** Entries with their line counts (computed once, then kept). */
  entries(checkpoint: Checkpoint): CheckpointEntry[] {
    return this.store.entries(checkpoint).map((e) => {
      if (e.added !== null) return e;
      const counts = countLines(storedText(this.store, e.before), storedText(this.store, e.after));
      this.store.setLineCounts(checkpoint, e.path, counts.added, counts.removed);
      return { ...e, ...counts };
    });
  }

  /** A unified diff of what the checkpoint changed (`--- a/PATH`, `+++ b/PATH` per file). */
  diff(id: string, only?: string): string {
    const checkpoint = this.require(id);
    const rel = only?.replace(/^\/+/, '');
    const entries = this.store.entries(checkpoint).filter((e) => rel === undefined || e.path === rel || e.path.startsWith(rel + '/'));
    return entries.map((e) => this.unifiedDiff(e)).join('');
  }

  /** Per path, what the agent changed in this thread (net of restores); what is back as it was is left out. */
  threadChanges(threadId: string, withContent = true): FileChange[] {
    const out: FileChange[] = [];
    let budget = withContent ? MAX_CONTENT_CHARS : 0;
    for (const [p, net] of [...this.netOfThread(threadId)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const { first, last } = net;
      if (first === null && last === null) continue;
      if (first !== null && last !== null && first.type === last.type && first.hash === last.hash && first.mode === last.mode) continue;
      const status = changeStatus({ path: p, before: first, after: last });
      const type = (last ?? first)!.type;
      if (type === 'd') continue;
      const before = storedText(this.store, first);
      const after = storedText(this.store, last);
      const binary = before === null || after === null;
      const counts = countLines(before, after);
      // The texts go along while they fit in the budget; past it the window shows counts only.
      const fits = !binary && before.length + after.length <= budget;
      if (fits) budget -= before.length + after.length;
      const hunks = fits && type === 'f' ? this.hunksOf(threadId, p, net, before, after) : undefined;
      out.push({ path: p, status, type, ...counts, binary, ...(fits ? { before, after } : {}), ...(hunks ? { hunks } : {}) });
    }
    return out;
  }

  /**
   * The ignored entries (git-ignored or dependency folders, kept as signatures) the thread's
   * steps changed since `since` (an ISO time): what git's view of the folder leaves out.
   */
  ignoredChanges(threadId: string, since: string): Array<{ path: string; folder: boolean }> {
    const found = new Map<string, boolean>();
    for (const c of this.threadCheckpoints(threadId)) {
      if (c.createdAt < since) continue;
      for (const { path, before, after } of this.store.entries(c)) {
        const state = after?.type === 'i' ? after : before?.type === 'i' ? before : undefined;
        if (state !== undefined) found.set(path, signsFolder(state.hash));
      }
    }
    return [...found].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, folder]) => ({ path, folder }));
  }

  /** Whether the thread changed a text file by a hunk not in `reviewed` (the Agents view says so). */
  hasUnreviewed(threadId: string, reviewed: ReadonlySet<string>): boolean {
    return this.threadChanges(threadId).some((f) => f.hunks?.some((h) => !reviewed.has(h.id)));
  }

  /**
   * Puts back one hunk (`hunkId`, as threadChanges gave it) of what the thread changed in
   * `rel`, between the thread's steps: a step going on ends first, and none starts meanwhile.
   * Null when the thread's change has no such hunk (any more).
   */
  async revertHunk(threadId: string, rel: string, hunkId: string, resolution: Resolution): Promise<(RestoreOutcome & { hunk: ReviewHunk }) | null> {
    const clean = rel.replace(/^\/+/, '');
    return this.betweenSteps(threadId, clean, async (net, hunks) => {
      const hunk = hunks.find((h) => h.id === hunkId);
      if (!hunk) return null;
      const outcome = await this.restore(net.folder, net.checkpoints, resolution, { threadId, messageIndex: null, messageLine: `Revert ${clean} ${hunkLines(hunk)}` }, new Set([clean]), {
        path: clean,
        apply: (current) => this.reverted([hunk], net, current),
        // The one hunk of a file is its whole change: as the agent left it, it goes back whole (a file it made is removed).
        unlessAsLeft: hunks.length === 1,
      });
      return { ...outcome, hunk };
    });
  }

  /** Restores the folder to before checkpoint `id`: reverts it and the thread's later ones. */
  restoreTo(id: string, resolution: Resolution): Promise<RestoreOutcome> {
    const target = this.require(id);
    const later = target.threadId === null ? [target] : this.threadCheckpoints(target.threadId).filter((c) => c.seq >= target.seq);
    return this.restore(target.folder, later, resolution, { threadId: target.threadId, messageIndex: target.messageIndex, messageLine: target.messageLine });
  }

  /**
   * Reverts what the agent changed since the user message at `messageIndex` (and anything
   * restored since). `gone`: steps that answered messages no longer in the conversation (it
   * was rewound, and message indexes were used again): the restore does not start at them.
   */
  async restoreToMessage(threadId: string, messageIndex: number, messageLine: string, resolution: Resolution, gone?: (c: Checkpoint) => boolean): Promise<RestoreOutcome | null> {
    const all = this.threadCheckpoints(threadId);
    const first = all.find((c) => c.kind === 'agent' && c.messageIndex !== null && c.messageIndex >= messageIndex && !gone?.(c));
    if (!first) return null;
    return this.restore(first.folder, all.filter((c) => c.seq >= first.seq), resolution, { threadId, messageIndex, messageLine });
  }

  /** Puts back what restore `id` changed. */
  undoRestore(id: string, resolution: Resolution): Promise<RestoreOutcome> {
    const restore = this.require(id);
    if (restore.kind !== 'restore') throw new Error(`checkpoint ${id} is not a restore`);
    return this.restore(restore.folder, [restore], resolution, { threadId: restore.threadId, messageIndex: restore.messageIndex, messageLine: restore.messageLine });
  }

  /** Puts `rels` back as they were before checkpoint `checkpoint` (a change refused after it was made), as a step of its thread. */
  putBack(checkpoint: Checkpoint, rels: readonly string[]): Promise<RestoreOutcome> {
    return this.restore(checkpoint.folder, [checkpoint], 'take-restore', { threadId: checkpoint.threadId, messageIndex: checkpoint.messageIndex, messageLine: `Put back ${rels.join(', ')}` }, new Set(rels));
  }

  /**
   * Reverts every change the thread's agent made to one path. A text file someone changed
   * since (or between the agent's steps) keeps their lines: only the hunks the thread wrote go
   * back, around the others' (or, when another change touches them, nothing does, and why).
   */
  async revertFile(threadId: string, rel: string, resolution: Resolution): Promise<RestoreOutcome | null> {
    const clean = rel.replace(/^\/+/, '');
    return this.betweenSteps(threadId, clean, (net, hunks) => {
      const record = { threadId, messageIndex: null, messageLine: `Revert ${clean}` };
      const text = hunks.length > 0 && (net.first === null || net.first.type === 'f');
      const merge = text ? { path: clean, unlessAsLeft: true, apply: (current: Buffer) => this.revertOwn(threadId, hunks, net, current) } : undefined;
      return this.restore(net.folder, net.checkpoints, resolution, record, new Set([clean]), merge);
    });
  }

  /** `current` with the hunks only the thread wrote put back (others' are kept), or why not. */
  private revertOwn(threadId: string, hunks: readonly ReviewHunk[], net: NetOfThread, current: Buffer): Buffer | string {
    const ours = (a: ReviewHunk['authors'][number]): boolean => a.kind === 'agent' && a.thread === threadId;
    const mixed = hunks.find((h) => h.authors.some(ours) && !h.authors.every(ours));
    if (mixed) return `${hunkLines(mixed)} hold lines you or another thread wrote too: nothing was reverted, so they are kept`;
    const own = hunks.filter((h) => h.authors.every(ours));
    if (own.length === 0) return 'no line of it is this thread’s any more: nothing was reverted';
    return this.reverted(own, net, current);
  }

  /** `current` with `hunks` of the thread's change put back, or why they cannot be. */
  private reverted(hunks: readonly ReviewHunk[], net: NetOfThread, current: Buffer): Buffer | string {
    const was = net.first === null ? Buffer.alloc(0) : this.store.blob(net.first.hash)!;
    const result = revertHunks(hunks, was, this.store.blob(net.last!.hash)!, current);
    if ('content' in result) return result.content;
    return `${hunkLines(result.clash)} changed since the agent’s change (by you or another thread): nothing was reverted, so they are kept`;
  }

  /**
   * Runs `work` between the thread's steps (a step going on ends first, none starts meanwhile)
   * with what the thread changed in `rel`, read once the step ended, and its hunks. Null when
   * the thread changed nothing there.
   */
  private async betweenSteps<T>(threadId: string, rel: string, work: (net: NetOfThread & { checkpoints: Checkpoint[] }, hunks: ReviewHunk[]) => Promise<T | null>): Promise<T | null> {
    const all = this.threadCheckpoints(threadId);
    if (all.length === 0) return null;
    return recorderFor(this.store, all[0]!.folder).betweenSteps(threadId, async () => {
      const net = this.netOfThread(threadId, rel).get(rel);
      if (!net) return null;
      const before = storedText(this.store, net.first);
      const after = storedText(this.store, net.last);
      const hunks = net.last?.type === 'f' && before !== null && after !== null ? this.hunksOf(threadId, rel, net, before, after) : [];
      const checkpoints = this.threadCheckpoints(threadId).filter((c) => c.seq >= net.firstSeq && c.seq <= net.lastSeq);
      return work({ ...net, checkpoints }, hunks);
    });
  }

  /** The latest restore of the thread, when it can still be undone (nothing of the thread came after it). */
  undoableRestore(threadId: string): Checkpoint | null {
    const all = this.threadCheckpoints(threadId);
    const last = all.at(-1);
    if (!last || last.kind !== 'restore') return null;
    // An undo is itself a restore of a single restore: it is not offered for undoing again.
    const undone = last.reverts.length === 1 && all.some((c) => c.id === last.reverts[0] && c.kind === 'restore');
    return undone ? null : last;
  }

  /** Removes the thread's checkpoints and the content nothing else needs. */
  deleteThread(threadId: string): void {
    if (this.store.deleteThread(threadId) > 0) this.store.collectUnreferenced();
  }

  /**
   * The size bound: while the kept content is over `maxBytes`, the history of the thread
   * checkpointed least recently is dropped, with the person's checkpoints up to then (never
   * the current state of any folder, which the next step needs). Returns the dropped thread ids.
   */
  collectGarbage(maxBytes = maxBytesFromEnv()): string[] {
    const dropped: string[] = [];
    this.store.collectUnreferenced();
    if (this.store.storedBytes() <= maxBytes) return dropped;
    for (const { threadId, lastAt } of this.store.threadsByAge()) {
      this.store.deleteThread(threadId);
      this.store.deletePersonCheckpointsUpTo(lastAt);
      dropped.push(threadId);
      this.store.collectUnreferenced();
      if (this.store.storedBytes() <= maxBytes) break;
    }
    return dropped;
  }

  private restore(folder: string, checkpoints: Checkpoint[], resolution: Resolution, record: RestoreRequest['record'], only?: ReadonlySet<string>, rewrite?: RestoreRequest['rewrite']): Promise<RestoreOutcome> {
    return restoreCheckpoints(recorderFor(this.store, folder), {
      checkpoints,
      entriesOf: (c): Change[] => this.store.entries(c),
      ...(only ? { only } : {}),
      ...(rewrite ? { rewrite } : {}),
      resolution,
      blob: (hash) => this.store.blob(hash),
      record,
    });
  }

  /** Per path (or just `only`), what the thread changed there. */
  private netOfThread(threadId: string, only?: string): Map<string, NetOfThread> {
    const byPath = new Map<string, NetOfThread>();
    for (const c of this.threadCheckpoints(threadId)) {
      for (const e of this.store.entries(c)) {
        if (only !== undefined && e.path !== only) continue;
        const seen = byPath.get(e.path);
        if (seen) Object.assign(seen, { last: e.after, lastSeq: c.seq });
        else byPath.set(e.path, { folder: c.folder, first: e.before, last: e.after, firstSeq: c.seq, lastSeq: c.seq });
      }
    }
    return byPath;
  }

  /** The hunks of the thread's change of a text file, each with who wrote it (a hunk that only removes lines: the thread). */
  private hunksOf(threadId: string, rel: string, net: NetOfThread, before: string, after: string): ReviewHunk[] {
    const authors = net.last === null ? [] : lineAuthors(this.store, net.folder, rel, this.store.blob(net.last.hash) ?? Buffer.from(after));
    const model = this.store.threadModel(threadId);
    return reviewHunks(rel, before, after, authors, { kind: 'agent', thread: threadId, ...(model !== undefined ? { model } : {}) });
  }

  private threadCheckpoints(threadId: string): Checkpoint[] {
    return this.store.checkpointsOfThread(threadId).filter((c) => c.kind !== 'person');
  }

  private require(id: string): Checkpoint {
    const c = this.store.checkpoint(id);
    if (!c) throw new CheckpointNotFoundError(`checkpoint '${id}' not found`);
    return c;
  }

  private unifiedDiff(e: CheckpointEntry): string {
    const head: string[] = [];
    if (e.before?.type === 'i' || e.after?.type === 'i') return `# changed inside ignored folder ${e.path}\n`;
    if (e.before?.type === 'd' || e.after?.type === 'd') {
      return e.before === null ? `# new folder ${e.path}/\n` : e.after === null ? `# deleted folder ${e.path}/\n` : '';
    }
    const kind = (s: FileState): string => (s.type === 'l' ? '120000' : `100${(s.mode & 0o777).toString(8).padStart(3, '0')}`);
    head.push(`diff --git a/${e.path} b/${e.path}`);
    if (e.before === null) head.push(`new file mode ${kind(e.after!)}`);
    else if (e.after === null) head.push(`deleted file mode ${kind(e.before)}`);
    else if (kind(e.before) !== kind(e.after)) head.push(`old mode ${kind(e.before)}`, `new mode ${kind(e.after)}`);
    head.push(`--- a/${e.path}`, `+++ b/${e.path}`);
    const before = storedText(this.store, e.before);
    const after = storedText(this.store, e.after);
    if (before === null || after === null) return `${head.join('\n')}\nBinary files a/${e.path} and b/${e.path} differ\n`;
    const body = unifiedHunks(before, after);
    return `${head.join('\n')}\n${body.length > 0 ? body.join('\n') + '\n' : ''}`;
  }
}

export class CheckpointNotFoundError extends Error {}

/** Lines added and removed; none for a binary side (null). */
function countLines(before: string | null, after: string | null): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  if (before === null || after === null) return { added, removed };
  for (const h of changeHunks(before, after)) {
    for (const line of h.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

function maxBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.DEEPDESK_CHECKPOINTS_MAX_MB);
  return Number.isFinite(mb) && mb > 0 ? mb * 1024 * 1024 : DEFAULT_MAX_BYTES;
}
