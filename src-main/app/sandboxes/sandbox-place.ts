// A folder that runs in a provider's sandbox (SPEC §18): the worktree's thread folder is the
// thread's folder as for any worktree thread, but its files and commands are the sandbox's.
// Opening it makes the sandbox (or finds it again), sends the folder up the first time (and
// what changed in the worktree since, later), and gives the session a backend whose changes
// come back to the worktree through the layer check after every step that may have changed
// something. Idle past its timeout the sandbox is stopped; its time goes to the usage ledger.

import os from 'node:os';
import { FilesystemBackend } from '../../core/backends/filesystem/filesystem';
import type { ShellBackend } from '../../core/backends/protocol';
import { ProviderBackend } from '../../core/backends/provider/provider-backend';
import { resolvePolicy } from '../../core/sandbox/policy';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { formatBlockedLine } from '../../core/sandbox/blocked';
import { PROVIDER_LABELS, SandboxProviderError, type ProviderSandbox, type SandboxProvider, type SandboxSpec } from '../../core/sandbox-providers/provider';
import { openSandboxProvider } from '../../core/sandbox-providers/registry';
import { bringBack } from './bring-back';
import { DEFAULT_BRING_BACK_LIMITS, type BringBackLimits } from './bring-back-download';
import { DEFAULT_UPLOAD_LIMITS, planUpload, uploadFolder, uploadSummary, type Manifest, type UploadLimits } from './folder-upload';
import { pushFolderChanges } from './push-changes';
import { BringBackBackend } from './bring-back-backend';
import type { SandboxRecord, SandboxStore } from './sandbox-store';

/** Settings › Sandboxes as a place reads them. */
export interface SandboxPlaceSettings {
  image?: string;
  cpu?: number;
  memoryGiB?: number;
  idleTimeoutMin?: number;
  maxUploadMb?: number;
  maxBringBackFileMb?: number;
  maxBringBackStepMb?: number;
  pricesPerHourUsd?: Partial<Record<string, number>>;
}

export interface SandboxPlaceOptions {
  record: SandboxRecord;
  store: SandboxStore;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Settings › Sandboxes now, and the keys saved there by variable name. */
  settings: () => SandboxPlaceSettings;
  savedKeys: () => Promise<Record<string, string | undefined>>;
  /** A line for the person; `info` for news (the upload), not a problem. */
  say: (line: string, kind?: 'info') => void;
  /** Sandbox time, in slices (the usage ledger). */
  recordTime?: (slice: { at: string; provider: string; sandboxId: string; seconds: number; costUsd: number | null }) => void;
  /** A provider to use instead of the registry's (tests). */
  provider?: SandboxProvider;
  signal?: AbortSignal;
  /** The sandbox's state changed as this place found it (started again, gone, removed): the window follows. */
  onState?: (state: SandboxPlaceState) => void;
}

/** Where the place's sandbox stands, as far as this place knows. */
export interface SandboxPlaceState {
  state: 'running' | 'stopped' | 'gone' | 'removed';
  /** For `gone` and `removed`: what happened and the ways forward. */
  message?: string;
}

export interface OpenedSandboxPlace {
  shell: ShellBackend;
  sandbox: ProviderSandbox;
  /** What went up when the sandbox was made, and what was left out. */
  uploadSummary?: string;
  /** Where the sandbox stands now (gone: every call refuses with the ways forward). */
  state(): SandboxPlaceState;
  /** Brings back what is left, records the time, lets go (the sandbox keeps running until idle). */
  close(): Promise<void>;
}

/** Sandbox time reaches the ledger at least this often while it runs (and at every command's end, stop and loss). */
const TIME_SLICE_MS = 60_000;
/** Minutes without a step before Deepdesk stops a sandbox it holds, when Settings names none. */
export const DEFAULT_IDLE_MINUTES = 30;
/** The provider's own idle stop comes this much later: a backstop for when Deepdesk is not running. */
const PROVIDER_IDLE_SLACK_MIN = 5;
/** After a pause this long, a step first makes sure the sandbox runs (a provider may have stopped it). */
const RECHECK_AFTER_MS = 60_000;

export async function openSandboxPlace(options: SandboxPlaceOptions): Promise<OpenedSandboxPlace> {
  const { record, store } = options;
  const label = PROVIDER_LABELS[record.provider];
  const settings = options.settings();
  const provider = options.provider ?? (await openSandboxProvider(record.provider, { env: options.env, saved: await options.savedKeys() }));
  let sandbox: ProviderSandbox;
  let fresh = false;
  /** Set once the sandbox is known gone (or removed): every call refuses with it. */
  let lost: { state: 'gone' | 'removed'; error: SandboxProviderError } | undefined;
  if (record.sandboxId !== null) {
    try {
      sandbox = await provider.attach(record.sandboxId, options.signal);
    } catch (err) {
      if (!(err instanceof SandboxProviderError && err.reason === 'gone')) throw err;
      // Gone: the folder still opens (its thread, its worktree), and says how to go on.
      store.setState(record.folder, 'gone');
      lost = { state: 'gone', error: goneWithWayForward(err, record, record.sandboxId) };
      sandbox = goneSandbox(record, lost.error);
    }
  } else {
    sandbox = await provider.create(sandboxSpec(settings, record.worktree), options.signal);
    store.made(record.folder, sandbox.id);
    fresh = true;
  }
  if (lost === undefined) store.setState(record.folder, 'running');
  const live = swappable(sandbox);
  sandbox = live.sandbox;
  const where = `the ${label} sandbox ${sandbox.id}`;
  const limits: UploadLimits = settings.maxUploadMb ? { ...DEFAULT_UPLOAD_LIMITS, maxTotalBytes: settings.maxUploadMb * 1024 * 1024 } : DEFAULT_UPLOAD_LIMITS;

  let manifest: Manifest;
  let summary = record.uploadSummary ?? undefined;
  try {
    if (lost !== undefined) {
      manifest = record.manifest ?? {};
    } else if (record.manifest === null || fresh) {
      const plan = await planUpload(record.folder, { dataDir: options.dataDir, env: options.env, limits, ...(options.signal ? { signal: options.signal } : {}) });
      manifest = await uploadFolder(sandbox, record.folder, plan, options.signal ? { signal: options.signal } : {});
      store.setManifest(record.folder, manifest);
      summary = uploadSummary(plan, where);
      store.setUploadSummary(record.folder, summary);
      options.say(summary, 'info');
    } else {
      // What changed in the worktree meanwhile (the person's edits, a restored checkpoint) goes up first.
      const pushed = await pushFolderChanges(sandbox, record.folder, record.manifest, { dataDir: options.dataDir, env: options.env, limits, ...(options.signal ? { signal: options.signal } : {}) });
      manifest = pushed.manifest;
      store.setManifest(record.folder, manifest);
      const files = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;
      const parts = [...(pushed.sent > 0 ? [`sent ${files(pushed.sent)} changed in the worktree`] : []), ...(pushed.removed > 0 ? [`removed ${files(pushed.removed)} deleted there`] : [])];
      if (parts.length > 0) options.say(`To ${where}: ${parts.join(', ')}.`, 'info');
    }
  } catch (err) {
    await sandbox.close().catch(() => undefined);
    if (fresh) {
      // A sandbox made for this start that could not take the folder: not left running, nor recorded.
      await provider.remove(sandbox.id).catch(() => undefined);
      store.forgetSandbox(record.folder);
    }
    throw err;
  }

  const home = os.homedir();
  const policy = resolvePolicy(folderSandboxPolicy({ projectDir: record.folder, dataDir: options.dataDir }), { homes: [home] });
  const id = sandbox.id;

  // Sandbox time: what ran, when it ran. The clock runs from when this place holds a running
  // sandbox until it is stopped (for idleness, by `sandboxes stop`), removed, found gone or let
  // go; it reaches the ledger at every command's end and at least each minute, never past its end.
  let heldSince: number | null = lost === undefined ? Date.now() : null;
  const flush = (until = Date.now()): void => {
    if (heldSince === null) return;
    const from = heldSince;
    const end = Math.max(from, until);
    heldSince = end;
    const seconds = (end - from) / 1000;
    if (seconds <= 0 || !options.recordTime) return;
    const price = options.settings().pricesPerHourUsd?.[record.provider];
    options.recordTime({ at: new Date(from).toISOString(), provider: record.provider, sandboxId: id, seconds, costUsd: price === undefined ? null : (price * seconds) / 3600 });
  };
  /** The clock stops at `at` (the moment it stopped, was removed or was found gone). */
  const stopClock = (at = Date.now()): void => {
    flush(at);
    heldSince = null;
  };

  const setLost = (state: 'gone' | 'removed', error: SandboxProviderError, at?: number): SandboxProviderError => {
    if (lost !== undefined) return lost.error;
    stopClock(at);
    lost = { state, error };
    if (state === 'gone') store.setState(record.folder, 'gone');
    options.say(error.message);
    options.onState?.({ state, message: error.message });
    return error;
  };

  /**
   * What another process did to the sandbox, as the records say (cheap: one SQLite row):
   * `sandboxes rm` forgot it, `sandboxes stop` stopped it. The clock ends when they did.
   */
  const followRecord = (): void => {
    if (lost !== undefined) return;
    const now = store.get(record.folder);
    if (now === undefined || now.sandboxId !== id) {
      setLost('removed', new SandboxProviderError(`The ${label} sandbox ${id} was removed (deepdesk sandboxes rm): this thread carries on on this computer, in its worktree, once the folder is opened again (Continue on this computer).`, 'gone', record.provider));
    } else if (now.state === 'gone') {
      setLost('gone', goneWithWayForward(new SandboxProviderError(`The ${label} sandbox ${id} is gone.`, 'gone', record.provider), record, id));
    } else if (now.state === 'stopped' && heldSince !== null) {
      stopClock(Math.min(Date.now(), Date.parse(now.lastUsedAt) || Date.now()));
      stoppedElsewhere = true;
    }
  };
  let stoppedElsewhere = false;

  /** Starts a stopped sandbox again (the provider's `attach` does), or finds it gone: the way forward is said. */
  const restart = async (why: string): Promise<void> => {
    let again: ProviderSandbox;
    try {
      again = await provider.attach(id, options.signal);
    } catch (err) {
      if (err instanceof SandboxProviderError && err.reason === 'gone') throw setLost('gone', goneWithWayForward(err, record, id));
      throw err;
    }
    const before = live.swap(again);
    if (before !== again) void before.close().catch(() => undefined);
    if (heldSince === null) heldSince = Date.now();
    stoppedForIdle = false;
    stoppedElsewhere = false;
    store.setState(record.folder, 'running');
    options.say(`The ${label} sandbox ${id} was ${why}; Deepdesk started it again.`);
    options.onState?.({ state: 'running' });
  };

  /** Every call on the sandbox: refused once it is lost; a stopped one is started again and the call made once more; one found gone says how to go on. */
  live.guard(async (call) => {
    if (lost !== undefined) throw lost.error;
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof SandboxProviderError)) throw err;
      if (err.reason === 'gone') throw setLost('gone', goneWithWayForward(err, record, id));
      if (err.reason !== 'stopped') throw err;
      stopClock();
      await restart('stopped');
      try {
        return await call();
      } catch (again) {
        if (again instanceof SandboxProviderError && again.reason === 'gone') throw setLost('gone', goneWithWayForward(again, record, id));
        throw again;
      }
    }
  });

  const sliceTimer = setInterval(() => {
    followRecord();
    flush();
  }, TIME_SLICE_MS);
  sliceTimer.unref();

  // Idle: Deepdesk stops the sandbox itself where the provider does not. The clock runs only
  // while no call holds the sandbox: a command longer than the idle timeout is not stopped under it.
  let idleTimer: NodeJS.Timeout | undefined;
  let stoppedForIdle = false;
  let closed = false;
  let holding = 0;
  const idleMs = (): number => (options.settings().idleTimeoutMin ?? DEFAULT_IDLE_MINUTES) * 60_000;
  let lastStep = Date.now();
  const armIdle = (): void => {
    if (idleTimer) clearTimeout(idleTimer);
    if (closed || lost !== undefined) return;
    idleTimer = setTimeout(() => {
      stopClock();
      stoppedForIdle = true;
      store.setState(record.folder, 'stopped');
      options.onState?.({ state: 'stopped' });
      void provider.stop(id).catch(() => undefined);
    }, idleMs());
    idleTimer.unref();
  };
  const release = (): void => {
    holding--;
    lastStep = Date.now();
    // A command's end: its time is in the ledger now.
    flush();
    if (holding === 0) armIdle();
  };
  const hold = async (): Promise<void> => {
    followRecord();
    // Lost: the call goes on to the backend, whose sandbox refuses it (the guard), so each tool answers as for any provider failure.
    if (lost !== undefined) {
      holding++;
      return;
    }
    store.used(record.folder);
    if (idleTimer) clearTimeout(idleTimer);
    holding++;
    try {
      if (stoppedForIdle || stoppedElsewhere) await restart(stoppedForIdle ? 'stopped for idleness' : 'stopped (deepdesk sandboxes stop)').catch((err: unknown) => {
        // Gone instead of stopped (a provider that ends what it stops): said by restart; the guard refuses the call.
        if (!(err instanceof SandboxProviderError && err.reason === 'gone')) throw err;
      });
      else if (Date.now() - lastStep > RECHECK_AFTER_MS) {
        // A provider may have stopped it meanwhile; its handle may not outlive a stop.
        const again = await live.raw(() => provider.attach(id, options.signal)).catch((err: unknown) => {
          // Gone meanwhile: said once; the call goes on and is refused by the guard, as any call then.
          if (err instanceof SandboxProviderError && err.reason === 'gone') {
            setLost('gone', goneWithWayForward(err, record, id));
            return undefined;
          }
          throw err;
        });
        if (again === undefined) return;
        const before = live.swap(again);
        if (before !== again) void before.close().catch(() => undefined);
        store.setState(record.folder, 'running');
      }
    } catch (err) {
      release();
      throw err;
    }
  };

  const backend = new ProviderBackend(sandbox);
  const local = new FilesystemBackend({ rootDir: record.folder });
  let current = manifest;
  const shell = new BringBackBackend({
    inner: backend,
    local,
    hold,
    release,
    bringBack: async (only, step) => {
      const back = await bringBack({ sandbox, folder: record.folder, manifest: current, home, protectedPaths: policy.protectedPaths, limits: bringBackLimits(options.settings()), ...(only ? { only } : {}), ...(step?.attribution ? { attribution: step.attribution } : {}), ...(step?.reviewLayer ? { reviewLayer: step.reviewLayer } : {}) });
      current = back.manifest;
      store.setManifest(record.folder, current);
      return { blockedLine: formatBlockedLine(back.blocked, policy), applied: back.applied };
    },
    where: label,
  });
  if (lost === undefined) {
    store.used(record.folder);
    armIdle();
  }

  return {
    shell,
    sandbox,
    ...(summary !== undefined ? { uploadSummary: summary } : {}),
    state: () => (lost !== undefined ? { state: lost.state, message: lost.error.message } : { state: stoppedForIdle || stoppedElsewhere ? 'stopped' : 'running' }),
    close: async () => {
      closed = true;
      clearInterval(sliceTimer);
      if (idleTimer) clearTimeout(idleTimer);
      try {
        if (!stoppedForIdle && lost === undefined) await shell.settle();
      } finally {
        stopClock();
        await sandbox.close().catch(() => undefined);
      }
    },
  };
}

/** What a worktree's new sandbox is made with (Settings › Sandboxes); the provider's own idle stop comes a little after Deepdesk's. */
export function sandboxSpec(settings: SandboxPlaceSettings, worktree: string): SandboxSpec {
  return {
    labels: { deepdesk: '1', worktree },
    ...(settings.image ? { image: settings.image } : {}),
    ...(settings.cpu ? { cpu: settings.cpu } : {}),
    ...(settings.memoryGiB ? { memoryGiB: settings.memoryGiB } : {}),
    idleTimeoutMin: (settings.idleTimeoutMin ?? DEFAULT_IDLE_MINUTES) + PROVIDER_IDLE_SLACK_MIN,
  };
}

/** A gone sandbox's error with what is kept and the two ways forward (a new sandbox, or this computer). */
function goneWithWayForward(err: SandboxProviderError, record: Pick<SandboxRecord, 'provider'>, id: string): SandboxProviderError {
  if (err.message.includes('Continue on this computer')) return err;
  return new SandboxProviderError(
    `${err.message} The thread and what came back from the sandbox are kept in its worktree: continue it in a new sandbox (Continue in a sandbox…, or deepdesk run --sandbox ${record.provider} --folder WORKTREE --thread …), or on this computer (Continue on this computer, or deepdesk sandboxes rm ${id}).`,
    'gone',
    record.provider,
  );
}

/** The handle of a sandbox found gone when the folder opened: every call refuses with why and how to go on. */
function goneSandbox(record: SandboxRecord, error: SandboxProviderError): ProviderSandbox {
  const refuse = (): Promise<never> => Promise.reject(error);
  return { id: record.sandboxId ?? '', provider: record.provider, workdir: '/', execute: refuse, upload: refuse, download: refuse, close: async () => undefined };
}

/** Settings › Sandboxes' caps on what comes back, read at every step (a raised cap counts at once). */
export function bringBackLimits(settings: SandboxPlaceSettings): BringBackLimits {
  const mb = 1024 * 1024;
  return {
    maxFileBytes: settings.maxBringBackFileMb ? settings.maxBringBackFileMb * mb : DEFAULT_BRING_BACK_LIMITS.maxFileBytes,
    maxStepBytes: settings.maxBringBackStepMb ? settings.maxBringBackStepMb * mb : DEFAULT_BRING_BACK_LIMITS.maxStepBytes,
  };
}

/** One sandbox whose provider handle can be replaced (after it was started again), for those that hold it; every call goes through `guard`. */
function swappable(initial: ProviderSandbox): {
  sandbox: ProviderSandbox;
  swap(next: ProviderSandbox): ProviderSandbox;
  guard(policy: <T>(call: () => Promise<T>) => Promise<T>): void;
  /** A call outside the guard (the guard's own restarts). */
  raw<T>(call: () => Promise<T>): Promise<T>;
} {
  let current = initial;
  let policy: <T>(call: () => Promise<T>) => Promise<T> = (call) => call();
  const sandbox: ProviderSandbox = {
    id: initial.id,
    provider: initial.provider,
    workdir: initial.workdir,
    execute: (command, options) => policy(() => current.execute(command, options)),
    upload: (files, signal) => policy(() => current.upload(files, signal)),
    download: (paths, signal) => policy(() => current.download(paths, signal)),
    close: () => current.close(),
  };
  return {
    sandbox,
    swap(next) {
      const before = current;
      current = next;
      return before;
    },
    guard(next) {
      policy = next;
    },
    raw: (call) => call(),
  };
}
