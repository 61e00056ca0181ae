// Records agent steps in one folder: the state before the step (anything that differs
// from the last snapshot was changed by the person or another program and is recorded as
// theirs), then the step, then what it changed (the agent's checkpoint). Snapshots of a
// folder are serialised; steps themselves run concurrently. A change first seen while
// another agent step of the folder is still running is that step's, not the person's.

import fs from 'node:fs';
import path from 'node:path';
import { diffStates, scanFolder, scanPaths, withParents } from './scan';
import type { CheckpointStore, NewCheckpoint } from './store';
import { sameState, type Change, type Checkpoint, type ManifestRow } from './types';

export interface StepInfo {
  threadId: string;
  messageIndex: number | null;
  messageLine: string;
  toolCallId?: string;
  tool?: string;
}

/** Folder-relative paths the step may write, or 'all' when it can change anything (a command). */
export type StepScope = readonly string[] | 'all';

/** What a step's first snapshot saw: the known paths' states, or 'walk' (the whole folder is in the manifest). */
type BeforeState = Map<string, ManifestRow | null> | 'walk';

export interface StepOutcome<T> {
  result: T;
  checkpoint?: Checkpoint;
  changes: Change[];
}

export class CheckpointRecorder {
  readonly root: string;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inFlight: StepInfo[] = [];
  private cache: { version: number; rows: Map<string, ManifestRow> } | null = null;

  readonly store: CheckpointStore;

  constructor(store: CheckpointStore, folder: string) {
    this.store = store;
    this.root = fs.realpathSync(folder);
  }

  /** Runs `fn` with the folder's snapshots serialised (restores use it too). */
  locked<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Runs a step between two snapshots; its changes become an agent checkpoint. */
  async step<T>(info: StepInfo, requested: StepScope, run: () => Promise<T>): Promise<StepOutcome<T>> {
    const scope = this.throughLinks(requested) ? 'all' : requested;
    let before: BeforeState | null;
    try {
      before = await this.locked(() => this.snapshotBefore(scope));
    } catch {
      // Recording must never stop the agent's work; this step is then simply not recorded.
      before = null;
    }
    this.inFlight.push(info);
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await run() };
    } catch (error) {
      // Stopped or failed: whatever it changed before that is still recorded.
      outcome = { ok: false, error };
    } finally {
      this.inFlight.splice(this.inFlight.indexOf(info), 1);
    }
    const taken = before;
    const recorded =
      taken === null ? { changes: [] } : await this.locked(() => this.snapshotAfter(info, scope, taken)).catch(() => ({ changes: [] as Change[] }));
    if (!outcome.ok) throw outcome.error;
    return { result: outcome.value, ...recorded };
  }

  /** The manifest as last written (cached; reloaded when another connection committed). */
  manifest(): Map<string, ManifestRow> {
    const version = this.store.db.pragma('data_version', { simple: true }) as number;
    if (this.cache === null || this.cache.version !== version) this.cache = { version, rows: this.store.manifest(this.root) };
    return this.cache.rows;
  }

  /** Commits a snapshot and keeps the cached manifest in step with it. */
  commit(options: Parameters<CheckpointStore['commit']>[0]): Checkpoint[] {
    const rows = this.manifest();
    const made = this.store.commit(options);
    for (const [rel, row] of options.manifest) {
      if (row === null) rows.delete(rel);
      else rows.set(rel, row);
    }
    this.cache = { version: this.store.db.pragma('data_version', { simple: true }) as number, rows };
    return made;
  }

  /** Changes seen outside any step: the person's, or a running step's. */
  private outsideChanges(changes: Change[]): NewCheckpoint[] {
    if (changes.length === 0) return [];
    const owner = this.inFlight[0];
    if (owner) return [{ folder: this.root, kind: 'agent', ...owner, toolCallId: owner.toolCallId ?? null, tool: owner.tool ?? null, changes }];
    return [{ folder: this.root, kind: 'person', threadId: null, messageIndex: null, messageLine: '', changes }];
  }

  private snapshotBefore(scope: StepScope): BeforeState {
    const manifest = this.manifest();
    if (scope === 'all') {
      const baseline = this.store.hasBaseline(this.root);
      const scan = scanFolder(this.root, manifest, baseline);
      this.commit({ folder: this.root, blobs: scan.blobs, manifest: scan.manifest, checkpoints: this.outsideChanges(scan.changes), baseline: !baseline });
      return 'walk';
    }
    const rels = withParents(scope);
    const { states, result } = scanPaths(this.root, rels, (rel) => manifest.get(rel));
    const baseline = this.store.hasBaseline(this.root);
    const changes: Change[] = [];
    const rows = new Map<string, ManifestRow | null>();
    for (const [rel, row] of states) {
      const known = manifest.get(rel);
      rows.set(rel, row);
      if (known === undefined && !baseline) continue;
      const was = known ? { type: known.type, mode: known.mode, hash: known.hash } : null;
      const now = row ? { type: row.type, mode: row.mode, hash: row.hash } : null;
      if (known?.type === 'i' || row?.type === 'i') continue;
      if (!sameState(was, now)) changes.push({ path: rel, before: was, after: now });
    }
    const writes = new Map([...rows].filter(([rel, row]) => row !== null || manifest.has(rel)));
    this.commit({ folder: this.root, blobs: result.blobs, manifest: writes, checkpoints: this.outsideChanges(changes) });
    return states;
  }

  private snapshotAfter(info: StepInfo, scope: StepScope, before: BeforeState): { changes: Change[]; checkpoint?: Checkpoint } {
    let changes: Change[];
    let blobs: Map<string, Buffer>;
    let manifestWrites: Map<string, ManifestRow | null>;
    if (scope === 'all' || before === 'walk') {
      const scan = scanFolder(this.root, this.manifest());
      changes = scan.changes;
      blobs = scan.blobs;
      manifestWrites = scan.manifest;
    } else {
      const rels = withParents(scope);
      const { states, result } = scanPaths(this.root, rels, (rel) => before.get(rel) ?? undefined);
      changes = diffStates(before, states);
      blobs = result.blobs;
      manifestWrites = new Map([...states].filter(([rel, row]) => row !== null || before.get(rel) != null));
    }
    const [checkpoint] = this.commit({
      folder: this.root,
      blobs,
      manifest: manifestWrites,
      checkpoints: [{ folder: this.root, kind: 'agent', threadId: info.threadId, messageIndex: info.messageIndex, messageLine: info.messageLine, toolCallId: info.toolCallId ?? null, tool: info.tool ?? null, changes }],
    });
    return { changes, ...(checkpoint ? { checkpoint } : {}) };
  }

  /** Whether a known-path step would write through a symlink (then its real target is unknown here: walk). */
  private throughLinks(scope: StepScope): boolean {
    if (scope === 'all') return false;
    for (const rel of withParents(scope)) {
      try {
        if (fs.lstatSync(path.join(this.root, rel)).isSymbolicLink()) return true;
      } catch {
        // Missing: nothing below it exists either.
      }
    }
    return false;
  }

  /** A folder-relative path for a real path inside the folder, or null outside it. */
  relative(abs: string): string | null {
    const rel = path.relative(this.root, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/');
  }
}

const recorders = new WeakMap<CheckpointStore, Map<string, CheckpointRecorder>>();

/** One recorder per folder and store, so every thread of a folder shares its serialisation. */
export function recorderFor(store: CheckpointStore, folder: string): CheckpointRecorder {
  let byFolder = recorders.get(store);
  if (!byFolder) recorders.set(store, (byFolder = new Map()));
  const root = fs.realpathSync(folder);
  let recorder = byFolder.get(root);
  if (!recorder) byFolder.set(root, (recorder = new CheckpointRecorder(store, root)));
  return recorder;
}
