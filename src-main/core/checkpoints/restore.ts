// Undoing checkpoints. For a set of checkpoints (oldest first) each path goes back to its
// state before the first of them that touched it. A path is a conflict when it is not
// what the last of them left (someone changed it afterwards), or when someone changed it
// between two of them: restoring it would discard that person's work, so it is only done
// when the caller says so. Every restore is recorded as a checkpoint of its own.
//
// A restore runs as the person, outside the sandbox (SPEC §8), so it never writes, creates,
// deletes or reads through a symbolic link in a parent folder of a path, never outside the
// folder and never into `.git` (no-follow.ts does every operation). Such a path is a
// conflict that no resolution overrides (`refused`): it is reported and left alone. One
// exception keeps an ordinary restore whole: when the restore itself turns a link back into
// the folder it was (the agent ran `ln -sfn` over a folder), the paths below it are restored
// into that new, real folder; the operations still refuse any link they meet.

import type fs from 'node:fs';
import { THROUGH_LINK, lstatAt, refusedByName } from '../fs/no-follow';
import type { CheckpointRecorder } from './recorder';
import type { RestoreOp } from './restore-ops';
import { scanPaths, sha256 } from './scan';
import { sameState, type Change, type Checkpoint, type FileState, type ManifestRow } from './types';

export interface NetChange {
  path: string;
  /** What the checkpoints left (the state a restore expects to find). */
  expected: FileState | null;
  /** The state before the first of them. */
  target: FileState | null;
  /** Someone else changed the path between two of the checkpoints. */
  interleaved: boolean;
  /** One of them saw it change during a command whose own changes cannot be told from others' (Checkpoint.unattributed). */
  unattributed: boolean;
}

/** Why a path an unattributed checkpoint holds is asked about even when it is as the agent left it. */
export const MAYBE_YOURS = 'changed while a command ran without the sandbox’s write layer: it may be yours';

/** Per path, the net effect of `checkpoints` (oldest first); paths they left as they found are omitted. */
export function netChanges(entriesOf: (c: Checkpoint) => Change[], checkpoints: readonly Checkpoint[], only?: ReadonlySet<string>): NetChange[] {
  const byPath = new Map<string, NetChange>();
  for (const c of checkpoints) {
    for (const e of entriesOf(c)) {
      if (only && !only.has(e.path)) continue;
      const seen = byPath.get(e.path);
      if (!seen) byPath.set(e.path, { path: e.path, expected: e.after, target: e.before, interleaved: false, unattributed: c.unattributed });
      else {
        if (c.unattributed) seen.unattributed = true;
        if (!sameState(seen.expected, e.before)) seen.interleaved = true;
        seen.expected = e.after;
      }
    }
  }
  return [...byPath.values()].filter((n) => n.interleaved || !sameState(n.expected, n.target)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export type Resolution = 'ask' | 'keep-mine' | 'take-restore';

export interface Conflict {
  path: string;
  reason: string;
  /** Never restored whatever the resolution: the path goes through a link, or into `.git`. */
  refused?: true;
}

export interface RestoreOutcome {
  /** False when conflicts stopped it (resolution 'ask'): nothing was changed. */
  applied: boolean;
  restored: string[];
  /** With 'keep-mine' / 'take-restore' too: the refused ones were left alone, the others resolved as asked. */
  conflicts: Conflict[];
  /** Paths that could not be restored, with why (ignored folders, files too big to keep, errors). */
  skipped: Conflict[];
  checkpoint?: Checkpoint;
  /** The file was rewritten around others' changes (RestoreRequest.rewrite), not restored whole. */
  rewritten?: true;
}

export interface RestoreRequest {
  checkpoints: readonly Checkpoint[];
  entriesOf: (c: Checkpoint) => Change[];
  only?: ReadonlySet<string>;
  resolution: Resolution;
  blob: (hash: string) => Buffer | undefined;
  /** Recorded on the restore's own checkpoint. */
  record: { threadId: string | null; messageIndex: number | null; messageLine: string };
  /**
   * One file's new content made from what it holds now (hunks put back around others'
   * changes), in place of the checkpoints' earlier states; its mode is kept. `apply` answers
   * why not when it cannot: nothing is changed. `unlessAsLeft`: a file as the checkpoints
   * left it (nobody changed it since or between them) is restored as a whole instead.
   */
  rewrite?: { path: string; apply(current: Buffer): Buffer | string; unlessAsLeft?: boolean };
}

export function restoreCheckpoints(recorder: CheckpointRecorder, request: RestoreRequest): Promise<RestoreOutcome> {
  return recorder.locked(() => restoreLocked(recorder, request));
}

async function restoreLocked(recorder: CheckpointRecorder, request: RestoreRequest): Promise<RestoreOutcome> {
  const root = recorder.root;
  const source = recorder.source;
  const plan: Array<NetChange & { current: FileState | null }> = [];
  const conflicts: Conflict[] = [];
  const skipped: Conflict[] = [];
  // What is there now is kept too, so the restore itself can be undone.
  const kept = new Map<string, Buffer>();
  // Links this restore turns back into folders: below them nothing of the folder exists yet.
  const linksToFolders = new Set<string>();
  const refuse = (rel: string, reason: string): void => {
    conflicts.push({ path: rel, reason, refused: true });
  };
  // A rewrite's content, made under the lock from the file as it is now.
  const made = new Map<string, Buffer>();
  let net = netChanges(request.entriesOf, request.checkpoints, request.only);
  let rewritten = false;
  const rewrite = request.rewrite;
  if (rewrite) {
    const rel = rewrite.path;
    const now = (await source.currentStates([rel])).get(rel);
    const whole = net.find((n) => n.path === rel);
    const asLeft = whole !== undefined && !whole.interleaved && sameState(now?.state ?? null, whole.expected);
    const content = now?.state?.type === 'f' ? now.blobs.get(now.state.hash) : undefined;
    if (rewrite.unlessAsLeft && (asLeft || content === undefined)) net = net.filter((n) => n.path === rel);
    else {
      const next = content === undefined ? 'no longer a file' : rewrite.apply(content);
      if (typeof next === 'string' || now?.state == null) return { applied: true, restored: [], conflicts: [], skipped: [{ path: rel, reason: typeof next === 'string' ? next : 'no longer a file' }] };
      made.set(sha256(next), next);
      rewritten = true;
      net = [{ path: rel, expected: now.state, target: { type: 'f', mode: now.state.mode, hash: sha256(next) }, interleaved: false, unattributed: false }];
    }
  }
  // What the plan looks at, asked of the folder in one go (a remote one answers in one call each).
  const named = net.filter((n) => refusedByName(n.path) === null);
  const links = await source.linkedParents(named.map((n) => n.path));
  const unlinked = named.filter((n) => links.get(n.path) == null && n.target?.type !== 'i' && n.expected?.type !== 'i' && !n.target?.hash.startsWith('big:'));
  const currents = await source.currentStates(unlinked.map((n) => n.path));
  for (const n of net) {
    const byName = refusedByName(n.path);
    if (byName !== null) {
      refuse(n.path, byName);
      continue;
    }
    // Parents come before their children (sorted paths), so a link's fate is known here.
    const link = links.get(n.path) ?? null;
    if (link !== null && !linksToFolders.has(link)) {
      refuse(n.path, THROUGH_LINK);
      continue;
    }
    if (n.target?.type === 'i' || n.expected?.type === 'i') {
      skipped.push({ path: n.path, reason: 'changed inside an ignored folder: not kept, cannot be restored' });
      continue;
    }
    if (n.target?.hash.startsWith('big:')) {
      skipped.push({ path: n.path, reason: 'too big to keep: cannot be restored' });
      continue;
    }
    const { state: current, blobs } = (link === null ? currents.get(n.path) : undefined) ?? { state: null, blobs: new Map<string, Buffer>() };
    for (const [hash, data] of blobs) kept.set(hash, data);
    if (sameState(current, n.target)) continue;
    const conflict = n.interleaved
      ? 'changed by someone else between the agent’s changes'
      : sameState(current, n.expected)
        ? n.unattributed
          ? MAYBE_YOURS
          : null
        : current === null
          ? 'deleted since the agent’s change'
          : 'changed since the agent’s change';
    if (conflict !== null) conflicts.push({ path: n.path, reason: conflict });
    const planned = conflict === null || request.resolution === 'take-restore';
    if (planned) plan.push({ ...n, current });
    // With 'ask' the link counts as replaced: what is listed is what taking the restore would do.
    if (current?.type === 'l' && n.target?.type === 'd' && (planned || request.resolution === 'ask')) linksToFolders.add(n.path);
  }
  if (conflicts.length > 0 && request.resolution === 'ask') return { applied: false, restored: [], conflicts, skipped };

  const done: Change[] = [];
  // A path whose operation met a link (one swapped in since the plan): refused, read back.
  const metLink = new Set<string>();
  const fail = (p: string, why: string): void => {
    if (why === 'link') {
      if (!metLink.has(p)) refuse(p, THROUGH_LINK);
      metLink.add(p);
      return;
    }
    skipped.push({ path: p, reason: why });
  };
  const isFileLike = (s: FileState | null): boolean => s !== null && (s.type === 'f' || s.type === 'l');

  // The operations, in order; the folder does each without going through a link in a parent folder.
  const ops: RestoreOp[] = [];
  // 1. Remove files and links that must go or change type (a link itself, never its target).
  for (const p of plan) if (isFileLike(p.current) && (p.target === null || p.target.type === 'd')) ops.push({ op: 'unlink', rel: p.path });
  // 2. Remove folders, deepest first (only empty ones: a folder someone filled stays).
  for (const p of [...plan].reverse()) if (p.current?.type === 'd' && p.target?.type !== 'd') ops.push({ op: 'rmdir', rel: p.path });
  // 3. Create folders, shallowest first, with their modes.
  for (const p of plan) if (p.target?.type === 'd') ops.push({ op: 'mkdir', rel: p.path, mode: p.target.mode, replace: p.current !== null && p.current.type !== 'd' });
  // 4. Write files and links: a temp file in the same folder renamed over the path (which
  // replaces a link itself, never what it points to); missing parents are created.
  for (const p of plan) {
    const t = p.target;
    if (t === null || t.type === 'd') continue;
    const content = made.get(t.hash) ?? request.blob(t.hash);
    if (content === undefined) {
      skipped.push({ path: p.path, reason: 'its earlier content is no longer kept' });
      continue;
    }
    ops.push({ op: 'put', rel: p.path, type: t.type === 'l' ? 'l' : 'f', content, mode: t.mode, replaceFolder: p.current?.type === 'd' });
  }
  const results = await source.applyRestore(ops);
  ops.forEach((op, i) => {
    const result = results[i] ?? 'not done';
    if (result === 'ok' || (result === 'ENOENT' && op.op !== 'mkdir' && op.op !== 'put')) return;
    if (op.op === 'rmdir' && result === 'ENOTEMPTY') skipped.push({ path: op.rel, reason: 'folder is not empty: left in place' });
    else fail(op.rel, result);
  });

  // What was written is known: only a path that failed is read back to see where it stands.
  const failed = new Set([...skipped.map((s) => s.path), ...metLink]);
  const states = new Map<string, ManifestRow | null>();
  const unsure: string[] = [];
  // A remote folder's stat is not the local one: every path it restored is read back (one call).
  if (!source.local) unsure.push(...plan.map((p) => p.path));
  else {
    for (const p of plan) {
    if (failed.has(p.path)) {
      unsure.push(p.path);
      continue;
    }
    let st: fs.Stats | undefined;
    try {
      st = lstatAt(root, p.path);
    } catch {
      unsure.push(p.path);
      continue;
    }
    const t = p.target;
    if (t === null && st === undefined) states.set(p.path, null);
    else if (t !== null && st !== undefined && (t.type === 'd') === st.isDirectory() && (t.type === 'l') === st.isSymbolicLink()) {
      states.set(p.path, { path: p.path, type: t.type, mode: t.type === 'd' ? t.mode : st.mode & 0o7777, hash: t.hash, size: t.type === 'd' ? 0 : st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, hashedAt: Date.now() });
    } else unsure.push(p.path);
    }
  }
  const reread = source.local ? scanPaths(root, unsure, () => undefined) : await source.scanPaths(unsure, () => undefined);
  for (const [rel, row] of reread.states) states.set(rel, row);
  const result = reread.result;
  for (const [hash, data] of [...kept, ...made]) result.blobs.set(hash, data);
  const manifest = new Map<string, ManifestRow | null>();
  const restored: string[] = [];
  for (const p of plan) {
    const row = states.get(p.path) ?? null;
    manifest.set(p.path, row);
    const after: FileState | null = row ? { type: row.type, mode: row.mode, hash: row.hash } : null;
    if (!sameState(p.current, after)) done.push({ path: p.path, before: p.current, after });
    if (sameState(after, p.target)) restored.push(p.path);
  }
  const [checkpoint] = recorder.commit({
    folder: root,
    blobs: result.blobs,
    manifest,
    checkpoints: [{ folder: root, kind: 'restore', ...request.record, reverts: request.checkpoints.map((c) => c.id), changes: done }],
  });
  return { applied: true, restored, conflicts, skipped, ...(checkpoint ? { checkpoint } : {}), ...(rewritten ? { rewritten: true as const } : {}) };
}
