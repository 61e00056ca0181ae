// Updates of the installed desktop app through electron-updater, from signed artefacts only,
// and off until the build has a publish target (electron-builder writes it into
// resources/app-update.yml when `publish` is configured; see docs/packaging.md):
// - Windows installs an update only when its Authenticode signature names one of the
//   `publisherName`s of app-update.yml (electron-builder writes them when it signs); a
//   target without one is not used.
// - macOS: Squirrel.Mac installs an update only when it is signed by the same identity as the
//   running app (which notarised builds are).
// - Linux (AppImage, deb): electron-updater checks only a checksum from the same server, so a
//   newer version is announced, not downloaded; it is installed like the first one was.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { UpdateStatus } from '../../app/contract';
import type { UpdateService } from '../../app/base/updates';

/** The part of electron-updater's AppUpdater this uses (tests pass a fake). */
export interface UpdaterLike {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  checkForUpdates(): Promise<unknown>;
  quitAndInstall(): void;
}

export type UpdateTarget = { kind: 'published'; provider: string } | { kind: 'none'; reason: string };

export interface UpdateTargetInput {
  packaged: boolean;
  /** process.resourcesPath: where app-update.yml is. */
  resourcesPath: string;
  platform: NodeJS.Platform;
}

/** Whether this copy has somewhere signed updates come from, and if not, why. */
export function updateTarget(input: UpdateTargetInput): UpdateTarget {
  if (!input.packaged) return { kind: 'none', reason: 'Updates are off: this copy runs from a source checkout (`npm start`); installed copies update themselves.' };
  const file = join(input.resourcesPath, 'app-update.yml');
  if (!existsSync(file)) return { kind: 'none', reason: 'Updates are off: no publish target is configured for this build (see docs/packaging.md).' };
  let config: unknown;
  try {
    config = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    return { kind: 'none', reason: `Updates are off: ${file} cannot be read (${err instanceof Error ? err.message : String(err)}).` };
  }
  const fields = typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
  const provider = typeof fields.provider === 'string' ? fields.provider : undefined;
  if (provider === undefined) return { kind: 'none', reason: `Updates are off: ${file} names no provider.` };
  if (input.platform === 'win32') {
    const publishers = fields.publisherName;
    const named = (Array.isArray(publishers) ? publishers : [publishers]).some((p) => typeof p === 'string' && p !== '');
    if (!named) return { kind: 'none', reason: 'Updates are off: this build was not signed (no publisherName to check an update’s signature against).' };
  }
  return { kind: 'published', provider };
}

export interface ElectronUpdatesOptions {
  currentVersion: string;
  target: UpdateTarget;
  platform: NodeJS.Platform;
  /** electron-updater's autoUpdater, imported only when updates are on. */
  loadUpdater: () => Promise<UpdaterLike>;
  now?: () => Date;
}

interface VersionInfo {
  version?: string;
}

export function createElectronUpdates(options: ElectronUpdatesOptions): UpdateService {
  const now = options.now ?? (() => new Date());
  const listeners = new Set<(status: UpdateStatus) => void>();
  const base = { currentVersion: options.currentVersion };
  let status: UpdateStatus =
    options.target.kind === 'none'
      ? { ...base, state: 'off', canCheck: false, message: options.target.reason }
      : { ...base, state: 'idle', canCheck: true, message: 'Not checked yet.' };
  // Linux packages are announced, not installed (see the top of this file).
  const downloads = options.platform === 'darwin' || options.platform === 'win32';

  const set = (next: Partial<UpdateStatus>): void => {
    status = { ...status, ...next };
    for (const listener of listeners) listener(status);
  };

  let updater: Promise<UpdaterLike> | undefined;
  const load = (): Promise<UpdaterLike> =>
    (updater ??= options.loadUpdater().then((u) => {
      u.autoDownload = downloads;
      u.autoInstallOnAppQuit = downloads;
      u.on('update-available', (info: VersionInfo) => {
        const version = info.version ?? 'a newer version';
        set(
          downloads
            ? { state: 'downloading', availableVersion: version, message: `Deepdesk ${version} is available; downloading it…` }
            : {
                state: 'available',
                availableVersion: version,
                message: `Deepdesk ${version} is available. Install it the way you installed this one (AppImage or deb packages are not updated in place, as they carry no signature to check).`,
              },
        );
      });
      u.on('update-not-available', () => set({ state: 'up-to-date', availableVersion: undefined, message: `Deepdesk ${options.currentVersion} is the latest version.` }));
      u.on('download-progress', (progress: { percent?: number }) => {
        const percent = typeof progress.percent === 'number' ? ` ${Math.floor(progress.percent)}%` : '';
        set({ state: 'downloading', message: `Downloading Deepdesk ${status.availableVersion ?? 'update'}…${percent}` });
      });
      u.on('update-downloaded', (info: VersionInfo) => {
        const version = info.version ?? status.availableVersion ?? 'the update';
        set({ state: 'downloaded', availableVersion: version, message: `Deepdesk ${version} is ready: it is installed when Deepdesk restarts.` });
      });
      u.on('error', (err: Error) => set({ state: 'error', message: `The update failed: ${err.message}` }));
      return u;
    }));

  let checking: Promise<UpdateStatus> | undefined;
  const check = async (): Promise<UpdateStatus> => {
    if (!status.canCheck) return status;
    if (status.state === 'downloading' || status.state === 'downloaded') return status;
    set({ state: 'checking', message: 'Checking for updates…' });
    try {
      const u = await load();
      await u.checkForUpdates();
      // The result arrived as an event; a check that said nothing is not an answer.
      if (status.state === 'checking') set({ state: 'error', message: 'The update check gave no answer.' });
    } catch (err) {
      set({ state: 'error', message: `The update check failed: ${err instanceof Error ? err.message : String(err)}` });
    }
    set({ checkedAt: now().toISOString() });
    return status;
  };

  return {
    status: () => status,
    check: () => (checking ??= check().finally(() => (checking = undefined))),
    install() {
      if (status.state !== 'downloaded' || updater === undefined) throw new Error('no update has been downloaded yet');
      void updater.then((u) => u.quitAndInstall());
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
