// Records agent steps in one folder: the state before the step (anything that differs
// from the last snapshot was changed by the person or another program and is recorded as
// theirs), then the step, then what it changed (the agent's checkpoint). Snapshots of a
// folder are serialised; steps themselves run concurrently.
//
// A change is a step's only if the step's own processes could have made it (attribution.ts):
// a command on a write layer changes the folder only when the recorder applies its layer,
// between two snapshots, so exactly what the layer changed is the step's and anything else
// seen meanwhile is the person's. A change first seen while another step is running is that
// step's only when it is within a file step's paths, or when a command without a layer (not
// sandboxed, or no layer here) is running: its changes cannot be told from anyone else's.
//
// The last recorded state (the manifest, a row per path) stays in the store: a walk loads it
// whole while it runs, a step the change feed or its paths narrow asks the store for the rows
// it needs, and a large folder's rows are not kept between snapshots (a process with a big
// folder open holds nothing per file while no step runs).

import fs from 'node:fs';
import path from 'node:path';
import type { LayerSettlement, StepAttribution } from '../process/attribution';
import { BlobWriter } from './blob-writer';
import type { ChangeFeed } from './change-feed';
import { isSshFolder } from '../backends/remote/ssh-target';
import { localFolderSource, type FolderSource } from './folder-source';
import { diffStates, entriesUnder, scanTargets, walkTargets, withParents, type ScanResult } from './scan';
import { HEAVY_FOLDERS } from '../fs/heavy-folders';
import type { CheckpointStore, NewCheckpoint } from './store';
import { sameState, type Change, type Checkpoint, type ManifestRow } from './types';

export interface StepInfo {
  threadId: string;
  messageIndex: number | null;
  messageLine: string;
  toolCallId?: string;
  tool?: string;
  /** Read once the step has run: a step may learn its model as it goes (another agent's turn). */
  model?: string;
}

/**
 * Folder-relative paths the step may write; 'all' when it can change anything; 'command'
 * when it runs a command, which tells how its changes can be seen (StepAttribution).
 */
export type StepScope = readonly string[] | 'all' | 'command';

type WalkScope = Exclude<StepScope, 'command'>;

/** The last recorded state as a step asks it (the cached manifest, or the store's rows). */
interface RecordedState {
  get(rel: string): ManifestRow | undefined;
  size(): number;
  /** The recorded paths below folder `rel`. */
  pathsUnder(rel: string): Iterable<string>;
  /** The recorded ignored entries (type `i`). */
  ignoredPaths(): Iterable<string>;
}

function mapState(rows: ReadonlyMap<string, ManifestRow>): RecordedState {
  return {
    get: (rel) => rows.get(rel),
    size: () => rows.size,
    pathsUnder: (rel) => [...rows.keys()].filter((key) => key.startsWith(`${rel}/`)),
    ignoredPaths: () => [...rows].flatMap(([key, row]) => (row.type === 'i' ? [key] : [])),
  };
}

/** What a step's first snapshot saw: the known paths' states, or 'walk' (the whole folder is in the manifest). */
type BeforeState = Map<string, ManifestRow | null> | 'walk';

/** A step while it runs. */
interface Running {
  info: StepInfo;
  /** The paths it may change ('all' for a command), with their parents. */
  paths: ReadonlySet<string> | 'all';
  /** Its command runs on a write layer: nothing it does is seen in the folder before the layer is applied. */
  layered: boolean;
  /** It ran a process whose writes cannot be observed (attribution.ts). */
  blind: boolean;
  /** Set once its layer was applied and recorded. */
  settled?: { changes: Change[]; checkpoint?: Checkpoint };
}

export interface StepOutcome<T> {
  result: T;
  checkpoint?: Checkpoint;
  changes: Change[];
}

/**
 * Below this many recorded entries, walking the whole folder (some 20 ms for 1,000) is
 * quicker than waiting for the watcher to report everything (its events come in batches
 * some 50 ms apart): walk.
 */
const FEED_FROM_ENTRIES = 5000;
/** Baseline rows and blobs are stored in transactions of about this size, the event loop served between them. */
const BASELINE_ROWS_PER_COMMIT = 1000;
const BASELINE_BLOB_BYTES_PER_COMMIT = 1024 * 1024;
const BASELINE_BLOBS_PER_COMMIT = 2000;

export class CheckpointRecorder {
  readonly root: string;
  /** Reads the folder's files: the local disk, or a remote folder over ssh (folder-source.ts). */
  readonly source: FolderSource;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inFlight: Running[] = [];
  private cache: { version: number; rows: Map<string, ManifestRow> } | null = null;
  /** Snapshots and restores running or waiting for the lock. */
  private holders = 0;
  private feed: ChangeFeed | null = null;
  /** The feed is used once the folder has this many recorded entries. */
  private feedFromEntries = FEED_FROM_ENTRIES;
  /** Per thread: its steps going on (until recorded), who waits for none to be, and a change of the person's that holds the next step. */
  private readonly threadSteps = new Map<string, { going: number; idle: Array<() => void>; held: Promise<void> | null }>();

  readonly store: CheckpointStore;

  /** `folder`: a local folder's path, or the source of a folder elsewhere (a remote one). */
  constructor(store: CheckpointStore, folder: string | FolderSource) {
    this.store = store;
    this.source = typeof folder === 'string' ? localFolderSource(folder) : folder;
    this.root = this.source.root;
  }

  /** Runs `fn` with the folder's snapshots serialised (restores use it too). */
  locked<T>(fn: () => Promise<T> | T): Promise<T> {
    this.holders += 1;
    const run = this.queue.then(fn, fn).finally(() => {
      this.holders -= 1;
      // Nothing waits: a large folder's rows go back to the store (the next walk loads them again).
      if (this.holders === 0 && this.cache !== null && this.cache.rows.size >= this.feedFromEntries) this.cache = null;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Told which paths change by a watcher, a step that cannot observe its command's writes
   * looks only at those paths (once the folder has a baseline and walking it is slow).
   */
  useChangeFeed(feed: ChangeFeed | null, options: { fromEntries?: number } = {}): void {
    // A feed reports local paths: a remote folder is always walked.
    this.feed = this.source.local ? feed : null;
    this.feedFromEntries = options.fromEntries ?? FEED_FROM_ENTRIES;
  }

  /**
   * Takes the folder's first snapshot (reading every file) unless it has one, in slices
   * that leave the event loop free: the app starts it when the folder opens, so that the
   * first step does not pay for it.
   */
  prepareBaseline(signal?: AbortSignal): Promise<void> {
    return this.locked(async () => {
      if (this.store.hasBaseline(this.root)) return;
      // A stop asked before the walk began is kept, however short the walk would be.
      signal?.throwIfAborted();
      this.feed?.reset();
      // Content is stored as the walk goes (compressed in zlib's threads, written by a worker:
      // blob-writer.ts), and so are the rows once their content is: neither is all kept until
      // the end (nor in the cache: the rows of a big folder would stay there).
      const known = this.manifest();
      this.cache = null;
      const writer = BlobWriter.start(this.store.db);
      const flush = async (partial: ScanResult): Promise<void> => {
        if (partial.blobs.size < BASELINE_BLOBS_PER_COMMIT && partial.manifest.size < BASELINE_ROWS_PER_COMMIT) {
          let bytes = 0;
          for (const data of partial.blobs.values()) bytes += data.length;
          if (bytes < BASELINE_BLOB_BYTES_PER_COMMIT) return;
        }
        const blobs = new Map(partial.blobs);
        partial.blobs.clear();
        await this.store.putBlobs(blobs, writer);
        const rows = new Map(partial.manifest);
        partial.manifest.clear();
        this.commit({ folder: this.root, blobs: new Map(), manifest: rows, checkpoints: [] });
      };
      let scan: ScanResult;
      try {
        scan = await this.source.walk(known, false, { ...(signal ? { signal } : {}), onSlice: flush });
        await this.store.putBlobs(scan.blobs, writer);
      } finally {
        await writer?.close();
      }
      const rows = [...scan.manifest];
      for (let i = 0; i === 0 || i < rows.length; i += BASELINE_ROWS_PER_COMMIT) {
        const last = i + BASELINE_ROWS_PER_COMMIT >= rows.length;
        this.commit({ folder: this.root, blobs: new Map(), manifest: new Map(rows.slice(i, i + BASELINE_ROWS_PER_COMMIT)), checkpoints: [], ...(last ? { baseline: true } : {}) });
        if (!last) await new Promise((resolve) => setImmediate(resolve));
      }
    });
  }

  /** The folder's first snapshot, or what changed since the last one recorded now as its owner's (the person's, or a running step's). */
  recordFolder(): Promise<void> {
    return this.store.hasBaseline(this.root) ? this.locked(async () => void (await this.snapshotBefore('all'))) : this.prepareBaseline();
  }

  /**
   * Runs a step between two snapshots; its changes become an agent checkpoint. A command
   * (scope 'command') tells how its changes can be seen before it starts: on a write layer
   * (nothing is walked; the layer's own paths are snapshotted around its application) or
   * blind (the folder is walked before it starts and after it ends). A command that says
   * neither is recorded as blind, comparing what it left with the last state recorded.
   */
  async step<T>(info: StepInfo, requested: StepScope, run: (attribution: StepAttribution) => Promise<T>): Promise<StepOutcome<T>> {
    const steps = this.stepsOf(info.threadId);
    while (steps.held) await steps.held;
    steps.going += 1;
    try {
      return await this.recordStep(info, requested, run);
    } finally {
      steps.going -= 1;
      if (steps.going === 0) for (const wake of steps.idle.splice(0)) wake();
    }
  }

  /**
   * Runs `fn` between the thread's steps (SPEC §24: a revert is never applied under a running
   * agent): once each step of it going on has ended and been recorded; its next step waits for `fn`.
   */
  async betweenSteps<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    const steps = this.stepsOf(threadId);
    while (steps.held) await steps.held;
    let release = (): void => undefined;
    steps.held = new Promise<void>((resolve) => (release = resolve));
    try {
      while (steps.going > 0) await new Promise<void>((resolve) => steps.idle.push(resolve));
      return await fn();
    } finally {
      steps.held = null;
      release();
    }
  }

  private stepsOf(threadId: string): { going: number; idle: Array<() => void>; held: Promise<void> | null } {
    let steps = this.threadSteps.get(threadId);
    if (!steps) this.threadSteps.set(threadId, (steps = { going: 0, idle: [], held: null }));
    return steps;
  }

  private async recordStep<T>(info: StepInfo, requested: StepScope, run: (attribution: StepAttribution) => Promise<T>): Promise<StepOutcome<T>> {
    const scope: StepScope = requested !== 'all' && requested !== 'command' && (await this.throughLinks(requested)) ? 'all' : requested;
    // `self`: a command step already running, whose snapshot before it must not count as its own what differs.
    const walkBefore = (self?: Running): Promise<BeforeState | null> =>
      this.locked(() => this.snapshotBefore(scope === 'command' ? 'all' : scope, self)).catch(() => {
        // Recording must never stop the agent's work; this step is then simply not recorded.
        return null;
      });
    let before: BeforeState | null | 'deferred' = scope === 'command' ? 'deferred' : await walkBefore();
    const running: Running = { info, paths: scope === 'all' || scope === 'command' ? 'all' : new Set(withParents(scope)), layered: false, blind: false };
    const attribution: StepAttribution = {
      expectLayer: () => {
        running.layered = true;
      },
      blind: async () => {
        running.blind = true;
        if (before === 'deferred') before = await walkBefore(running);
      },
      settle: (planned, apply) => this.locked(() => this.settleLayer(running, planned, apply)),
    };
    this.inFlight.push(running);
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await run(attribution) };
    } catch (error) {
      // Stopped or failed: whatever it changed before that is still recorded.
      outcome = { ok: false, error };
    } finally {
      this.inFlight.splice(this.inFlight.indexOf(running), 1);
    }
    let recorded: { changes: Change[]; checkpoint?: Checkpoint };
    if (running.settled) recorded = running.settled;
    else if (before === null || (before === 'deferred' && running.layered)) recorded = { changes: [] };
    else {
      // A command that said nothing of how it ran: what differs from the last recorded state is taken as its, unattributed.
      if (before === 'deferred') running.blind = true;
      const taken: BeforeState = before === 'deferred' ? 'walk' : before;
      recorded = await this.locked(() => this.snapshotAfter(running, scope === 'command' ? 'all' : scope, taken)).catch(() => ({ changes: [] as Change[] }));
    }
    if (!outcome.ok) throw outcome.error;
    return { result: outcome.value, ...recorded };
  }

  /**
   * Applies a step's write layer between two snapshots of the paths it changes (as the walk
   * records them): what differs from the last recorded state before is someone else's (the
   * person's, or a running step's by the rules of `outsideChanges`); what the layer changed
   * is the step's. No walk of the folder: the cost follows what the command wrote.
   */
  private async settleLayer<T extends LayerSettlement>(running: Running, planned: LayerSettlement, apply: () => Promise<T>): Promise<T> {
    let targets: Map<string, boolean>;
    let pre: Map<string, ManifestRow | null>;
    try {
      // Write layers are local sandboxes' (a remote command never has one): nothing to read here otherwise.
      if (!this.source.local) throw new Error('no write layer on a remote folder');
      targets = this.targetsOf(planned);
      const manifest = this.recorded();
      const baseline = this.store.hasBaseline(this.root);
      const scan = scanTargets(this.root, targets, (rel) => manifest.get(rel));
      pre = scan.states;
      const theirs = againstManifest(pre, manifest, baseline, { ignoredChanges: true });
      this.commit({ folder: this.root, blobs: scan.result.blobs, manifest: theirs.writes, checkpoints: this.outsideChanges(theirs.changes, running) });
    } catch {
      // Not recorded; the layer is applied all the same.
      running.settled = { changes: [] };
      return apply();
    }
    const applied = await apply();
    try {
      const before = pre;
      const scan = scanTargets(this.root, targets, (rel) => before.get(rel) ?? undefined);
      const own = diffStates(before, scan.states);
      const writes = new Map([...scan.states].filter(([rel, row]) => row !== null || before.get(rel) != null));
      const { info } = running;
      const [checkpoint] = this.commit({
        folder: this.root,
        blobs: scan.result.blobs,
        manifest: writes,
        checkpoints: [{ folder: this.root, kind: 'agent', threadId: info.threadId, messageIndex: info.messageIndex, messageLine: info.messageLine, toolCallId: info.toolCallId ?? null, tool: info.tool ?? null, model: info.model ?? null, changes: own }],
      });
      running.settled = { changes: own, ...(checkpoint ? { checkpoint } : {}) };
    } catch {
      running.settled = { changes: [] };
    }
    return applied;
  }

  /**
   * The entries a walk would record for what a layer changes: each path (or the ignored
   * entry holding it), their parent folders, and every recorded path below a subtree it
   * removed or made anew. Values: whether the entry is an ignored one (kept as a signature).
   */
  private targetsOf(planned: LayerSettlement): Map<string, boolean> {
    const manifest = this.recorded();
    const rels = new Set(withParents(planned.touched));
    // What the layer removes: what is there now (not applied yet), and what was last recorded there.
    for (const sub of planned.subtrees) {
      for (const rel of entriesUnder(this.root, sub)) rels.add(rel);
      for (const rel of manifest.pathsUnder(sub)) rels.add(rel);
    }
    const targets = new Map<string, boolean>();
    for (const { rel, ignored } of walkTargets(this.root, rels, (r) => manifest.get(r)?.type === 'd').values()) targets.set(rel, ignored);
    return targets;
  }

  /** The manifest as last written, whole (cached; reloaded when another connection committed). */
  manifest(): Map<string, ManifestRow> {
    const version = this.dataVersion();
    if (this.cache === null || this.cache.version !== version) this.cache = { version, rows: this.store.manifest(this.root) };
    return this.cache.rows;
  }

  /** The last recorded state for a step that needs only some of it: the cached manifest while it is current, else the store's rows. */
  private recorded(): RecordedState {
    if (this.cache !== null && this.cache.version === this.dataVersion()) return mapState(this.cache.rows);
    return {
      get: (rel) => this.store.manifestRow(this.root, rel),
      size: () => this.store.manifestSize(this.root),
      pathsUnder: (rel) => this.store.manifestPathsUnder(this.root, rel),
      ignoredPaths: () => this.store.manifestIgnoredPaths(this.root),
    };
  }

  private dataVersion(): number {
    return this.store.db.pragma('data_version', { simple: true }) as number;
  }

  /** Commits a snapshot and keeps the cached manifest (when there is one) in step with it. */
  commit(options: Parameters<CheckpointStore['commit']>[0]): Checkpoint[] {
    const current = this.cache !== null && this.cache.version === this.dataVersion() ? this.cache.rows : null;
    const made = this.store.commit(options);
    if (current === null) {
      this.cache = null;
      return made;
    }
    for (const [rel, row] of options.manifest) {
      if (row === null) current.delete(rel);
      else current.set(rel, row);
    }
    this.cache = { version: this.dataVersion(), rows: current };
    return made;
  }

  /**
   * Changes seen outside a step's own recording: a running file step's when within its paths,
   * a running command's when it has no write layer (its changes cannot be told apart), else
   * the person's. `self` (a step applying its layer) is never their owner.
   */
  private outsideChanges(changes: Change[], self?: Running): NewCheckpoint[] {
    if (changes.length === 0) return [];
    const owners = new Map<Running | null, Change[]>();
    const blind = this.inFlight.find((r) => r !== self && r.paths === 'all' && !r.layered);
    for (const change of changes) {
      const owner = this.inFlight.find((r) => r !== self && r.paths !== 'all' && r.paths.has(change.path)) ?? blind ?? null;
      const list = owners.get(owner);
      if (list) list.push(change);
      else owners.set(owner, [change]);
    }
    return [...owners].map(([owner, own]) =>
      owner
        ? { folder: this.root, kind: 'agent' as const, ...owner.info, toolCallId: owner.info.toolCallId ?? null, tool: owner.info.tool ?? null, unattributed: owner.blind, changes: own }
        : { folder: this.root, kind: 'person' as const, threadId: null, messageIndex: null, messageLine: '', changes: own },
    );
  }

  private async snapshotBefore(scope: WalkScope, self?: Running): Promise<BeforeState> {
    if (scope === 'all') {
      const baseline = this.store.hasBaseline(this.root);
      const scan = await this.scanAll(baseline);
      this.commit({ folder: this.root, blobs: scan.blobs, manifest: scan.manifest, checkpoints: this.outsideChanges(scan.changes, self), baseline: !baseline });
      return 'walk';
    }
    const manifest = this.recorded();
    const { states, result } = await this.source.scanPaths(withParents(scope), (rel) => manifest.get(rel));
    const theirs = againstManifest(states, manifest, this.store.hasBaseline(this.root), { ignoredChanges: false });
    this.commit({ folder: this.root, blobs: result.blobs, manifest: theirs.writes, checkpoints: this.outsideChanges(theirs.changes) });
    return states;
  }

  /**
   * What differs in the whole folder from the last recorded state: only the paths the
   * change feed reports when there is one worth waiting for, else a walk (in slices).
   */
  private async scanAll(record: boolean): Promise<ScanResult> {
    if (record && this.feed && this.recorded().size() >= this.feedFromEntries) {
      const changed = await this.feed.take();
      if (changed !== 'unknown') return this.scanChanged(changed, this.recorded());
    }
    this.feed?.reset();
    return this.source.walk(this.manifest(), record);
  }

  /** A whole-folder scan's answer for a folder where only `changed` (and dependency folders the feed does not look into) can differ. */
  private scanChanged(changed: ReadonlySet<string>, manifest: RecordedState): ScanResult {
    const touched = [...changed];
    const subtrees: string[] = [];
    for (const rel of touched) {
      let isDir = false;
      try {
        isDir = fs.lstatSync(path.join(this.root, rel)).isDirectory();
      } catch {
        // Gone.
      }
      // A folder reported itself was made, moved in, replaced or removed: everything below it
      // too (nothing is reported for what moves in with it, and a watcher may miss what is
      // made in a new folder before it watches it).
      if (isDir || manifest.get(rel)?.type === 'd') subtrees.push(rel);
    }
    for (const rel of manifest.ignoredPaths()) if (rel.split('/').some((name) => HEAVY_FOLDERS.has(name))) touched.push(rel);
    const targets = this.targetsOf({ touched, subtrees });
    const { states, result } = scanTargets(this.root, targets, (rel) => manifest.get(rel));
    const compared = againstManifest(states, manifest, true, { ignoredChanges: true });
    return { changes: compared.changes, blobs: result.blobs, manifest: compared.writes };
  }

  private async snapshotAfter(running: Running, scope: WalkScope, before: BeforeState): Promise<{ changes: Change[]; checkpoint?: Checkpoint }> {
    const { info } = running;
    let changes: Change[];
    let blobs: Map<string, Buffer>;
    let manifestWrites: Map<string, ManifestRow | null>;
    // A folder without its first snapshot (a command that said nothing of how it ran, before the
    // baseline was taken): its files are not the step's additions. Taken now, nothing counted.
    const firstSnapshot = (scope === 'all' || before === 'walk') && !this.store.hasBaseline(this.root);
    if (scope === 'all' || before === 'walk') {
      const scan = await this.scanAll(!firstSnapshot);
      changes = firstSnapshot ? [] : scan.changes;
      blobs = scan.blobs;
      manifestWrites = scan.manifest;
    } else {
      const rels = withParents(scope);
      const { states, result } = await this.source.scanPaths(rels, (rel) => before.get(rel) ?? undefined);
      changes = diffStates(before, states);
      blobs = result.blobs;
      manifestWrites = new Map([...states].filter(([rel, row]) => row !== null || before.get(rel) != null));
    }
    const [checkpoint] = this.commit({
      folder: this.root,
      blobs,
      manifest: manifestWrites,
      ...(firstSnapshot ? { baseline: true } : {}),
      checkpoints: [
        {
          folder: this.root,
          kind: 'agent',
          threadId: info.threadId,
          messageIndex: info.messageIndex,
          messageLine: info.messageLine,
          toolCallId: info.toolCallId ?? null,
          tool: info.tool ?? null,
          model: info.model ?? null,
          // A process without a write layer ran: what it changed cannot be told from what others did meanwhile.
          unattributed: running.blind,
          changes,
        },
      ],
    });
    return { changes, ...(checkpoint ? { checkpoint } : {}) };
  }

  /** Whether a known-path step would write through a symlink (then its real target is unknown here: walk). */
  private throughLinks(scope: WalkScope): Promise<boolean> {
    if (scope === 'all') return Promise.resolve(false);
    return this.source.throughLinks(scope).catch(() => true);
  }
}

/**
 * What the just-observed `states` change against the last recorded state, and the manifest
 * writes that record them. Before the folder's first snapshot nothing counts as a change.
 * `ignoredChanges`: whether a changed signature of an ignored entry counts (a path becoming
 * ignored, or no longer ignored, never does).
 */
function againstManifest(
  states: ReadonlyMap<string, ManifestRow | null>,
  manifest: Pick<RecordedState, 'get'>,
  baseline: boolean,
  options: { ignoredChanges: boolean },
): { changes: Change[]; writes: Map<string, ManifestRow | null> } {
  const changes: Change[] = [];
  const writes = new Map<string, ManifestRow | null>();
  for (const [rel, row] of states) {
    const known = manifest.get(rel);
    if (row !== null || known !== undefined) writes.set(rel, row);
    if (known === undefined && !baseline) continue;
    if (known?.type === 'i' || row?.type === 'i') {
      if (!options.ignoredChanges || (known !== undefined && row !== null && (known.type === 'i') !== (row.type === 'i'))) continue;
    }
    const was = known ? { type: known.type, mode: known.mode, hash: known.hash } : null;
    const now = row ? { type: row.type, mode: row.mode, hash: row.hash } : null;
    if (!sameState(was, now)) changes.push({ path: rel, before: was, after: now });
  }
  changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { changes, writes };
}

const recorders = new WeakMap<CheckpointStore, Map<string, CheckpointRecorder>>();

/** One recorder per folder and store, so every thread of a folder shares its serialisation. */
export function recorderFor(store: CheckpointStore, folder: string | FolderSource): CheckpointRecorder {
  let byFolder = recorders.get(store);
  if (!byFolder) recorders.set(store, (byFolder = new Map()));
  // A remote folder (its ssh:// URL, as checkpoints record it) has a recorder once it was opened with its source.
  const root = typeof folder !== 'string' ? folder.root : isSshFolder(folder) ? folder : fs.realpathSync(folder);
  let recorder = byFolder.get(root);
  if (!recorder && typeof folder === 'string' && isSshFolder(folder)) throw new Error(`the remote folder is not connected: ${folder}`);
  if (!recorder) byFolder.set(root, (recorder = new CheckpointRecorder(store, typeof folder === 'string' ? root : folder)));
  return recorder;
}
