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
}

export interface OpenedSandboxPlace {
  shell: ShellBackend;
  sandbox: ProviderSandbox;
  provider: SandboxProvider;
  /** `Daytona`. */
  label: string;
  /** What went up when the sandbox was made, and what was left out. */
  uploadSummary?: string;
  /** Brings back what is left, records the time, lets go (the sandbox keeps running until idle). */
  close(): Promise<void>;
}

const TIME_SLICE_MS = 5 * 60_000;
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
  if (record.sandboxId !== null) {
    try {
      sandbox = await provider.attach(record.sandboxId, options.signal);
    } catch (err) {
      if (err instanceof SandboxProviderError && err.reason === 'gone') {
        store.setState(record.folder, 'gone');
        throw new SandboxProviderError(
          `${err.message} The thread and what came back from the sandbox are kept in its worktree; continue it in a new sandbox with Continue in a sandbox… (or deepdesk run --sandbox ${record.provider} --thread …).`,
          'gone',
          record.provider,
        );
      }
      throw err;
    }
  } else {
    const spec: SandboxSpec = {
      labels: { deepdesk: '1', worktree: record.worktree },
      ...(settings.image ? { image: settings.image } : {}),
      ...(settings.cpu ? { cpu: settings.cpu } : {}),
      ...(settings.memoryGiB ? { memoryGiB: settings.memoryGiB } : {}),
      idleTimeoutMin: (settings.idleTimeoutMin ?? DEFAULT_IDLE_MINUTES) + PROVIDER_IDLE_SLACK_MIN,
    };
    sandbox = await provider.create(spec, options.signal);
    store.made(record.folder, sandbox.id);
    fresh = true;
  }
  store.setState(record.folder, 'running');
  const live = swappable(sandbox);
  sandbox = live.sandbox;
  const where = `the ${label} sandbox ${sandbox.id}`;
  const limits: UploadLimits = settings.maxUploadMb ? { ...DEFAULT_UPLOAD_LIMITS, maxTotalBytes: settings.maxUploadMb * 1024 * 1024 } : DEFAULT_UPLOAD_LIMITS;

  let manifest: Manifest;
  let summary = record.uploadSummary ?? undefined;
  try {
    if (record.manifest === null || fresh) {
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
    throw err;
  }

  const home = os.homedir();
  const policy = resolvePolicy(folderSandboxPolicy({ projectDir: record.folder, dataDir: options.dataDir }), { homes: [home] });

  // Sandbox time: counted while this session holds the sandbox and it is not stopped for idleness.
  let heldSince: number | null = Date.now();
  const slice = (): void => {
    if (heldSince === null || !options.recordTime) return;
    const now = Date.now();
    const seconds = (now - heldSince) / 1000;
    heldSince = now;
    if (seconds <= 0) return;
    const price = options.settings().pricesPerHourUsd?.[record.provider];
    options.recordTime({ at: new Date(now - seconds * 1000).toISOString(), provider: record.provider, sandboxId: sandbox.id, seconds, costUsd: price === undefined ? null : (price * seconds) / 3600 });
  };
  const sliceTimer = setInterval(slice, TIME_SLICE_MS);
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
    if (closed) return;
    idleTimer = setTimeout(() => {
      slice();
      heldSince = null;
      stoppedForIdle = true;
      store.setState(record.folder, 'stopped');
      void provider.stop(sandbox.id).catch(() => undefined);
    }, idleMs());
    idleTimer.unref();
  };
  const release = (): void => {
    holding--;
    lastStep = Date.now();
    if (holding === 0) armIdle();
  };
  const hold = async (): Promise<void> => {
    store.used(record.folder);
    if (idleTimer) clearTimeout(idleTimer);
    holding++;
    try {
      if (stoppedForIdle || Date.now() - lastStep > RECHECK_AFTER_MS) {
        // Started again when stopped (by Deepdesk for idleness, or by the provider); a provider's handle may not outlive a stop.
        const again = await provider.attach(sandbox.id, options.signal);
        const before = live.swap(again);
        if (before !== again) void before.close().catch(() => undefined);
        if (stoppedForIdle) heldSince = Date.now();
        stoppedForIdle = false;
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
    bringBack: async (only, attribution) => {
      const back = await bringBack({ sandbox, folder: record.folder, manifest: current, home, protectedPaths: policy.protectedPaths, limits: bringBackLimits(options.settings()), ...(only ? { only } : {}), ...(attribution ? { attribution } : {}) });
      current = back.manifest;
      store.setManifest(record.folder, current);
      return { blockedLine: formatBlockedLine(back.blocked, policy), applied: back.applied };
    },
    where: label,
  });
  store.used(record.folder);
  armIdle();

  return {
    shell,
    sandbox,
    provider,
    label,
    ...(summary !== undefined ? { uploadSummary: summary } : {}),
    close: async () => {
      closed = true;
      clearInterval(sliceTimer);
      if (idleTimer) clearTimeout(idleTimer);
      try {
        if (!stoppedForIdle) await shell.settle();
      } finally {
        slice();
        heldSince = null;
        await sandbox.close().catch(() => undefined);
      }
    },
  };
}

/** Settings › Sandboxes' caps on what comes back, read at every step (a raised cap counts at once). */
export function bringBackLimits(settings: SandboxPlaceSettings): BringBackLimits {
  const mb = 1024 * 1024;
  return {
    maxFileBytes: settings.maxBringBackFileMb ? settings.maxBringBackFileMb * mb : DEFAULT_BRING_BACK_LIMITS.maxFileBytes,
    maxStepBytes: settings.maxBringBackStepMb ? settings.maxBringBackStepMb * mb : DEFAULT_BRING_BACK_LIMITS.maxStepBytes,
  };
}

/** One sandbox whose provider handle can be replaced (after it was started again), for those that hold it. */
function swappable(initial: ProviderSandbox): { sandbox: ProviderSandbox; swap(next: ProviderSandbox): ProviderSandbox } {
  let current = initial;
  const sandbox: ProviderSandbox = {
    id: initial.id,
    provider: initial.provider,
    workdir: initial.workdir,
    execute: (command, options) => current.execute(command, options),
    upload: (files, signal) => current.upload(files, signal),
    download: (paths, signal) => current.download(paths, signal),
    close: () => current.close(),
  };
  return {
    sandbox,
    swap(next) {
      const before = current;
      current = next;
      return before;
    },
  };
}
