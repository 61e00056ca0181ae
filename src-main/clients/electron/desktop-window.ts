// The desktop app's window as a client of the agent host (SPEC §16), as `deepdesk serve`'s
// is: its requests go to its folder host in the host (`window.call`), which owns the runs, so
// they outlive the desktop app. What only the desktop app can do is answered here when the
// host asks (desktop-answers.ts); its updater and its own notices (a crashed page, a second
// launch) never leave this process.

import type { EventFrame, MethodName, NoticeDto } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { buildId } from '../../app/base/package-version';
import type { SecretCipher } from '../../app/settings/encrypted-file-secret-store';
import { updateMethods, type UpdateService } from '../../app/base/updates';
import { HostWindow } from '../host-client/host-window';
import type { HostLaunch } from '../host-client/launch';
import { desktopAnswers } from './desktop-answers';

export interface DesktopWindowOptions {
  dataDir: string;
  /** From the command line; null: the window opens on Open folder. */
  folder: string | null;
  /** Where the desktop app keeps its keys, encrypted by `cipher` (Electron's userData/secrets.json). */
  secretsFile: string;
  cipher: SecretCipher;
  platform: NodeJS.Platform;
  pickFolder: () => Promise<string | null>;
  openExternal: (url: string) => Promise<void>;
  updates: UpdateService;
  launch: HostLaunch;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface DesktopWindow extends WindowApi {
  /** A notice of the desktop app's own (the page crashed and was reloaded, a second launch's flags). */
  notice(message: string): void;
  /** The threads working in the host's windows' folders: what quitting asks about. */
  workingThreads(): Promise<string[]>;
  /** Stops them (`Stop runs and quit`). */
  stopRuns(threadIds: readonly string[]): Promise<void>;
  /** Leaves the host; its runs go on. */
  close(): Promise<void>;
}

/** Connects to the data folder's host (starting it) and opens the window there; rejects as `window.open` does. */
export async function openDesktopWindow(options: DesktopWindowOptions): Promise<DesktopWindow> {
  const listeners = new Set<(frame: EventFrame) => void>();
  const emit = (frame: EventFrame) => {
    for (const listener of listeners) listener(frame);
  };
  const notices: NoticeDto[] = [];
  const notice = (message: string) => {
    if (notices.some((n) => n.message === message)) return;
    const dto: NoticeDto = { id: `desktop-${notices.length + 1}`, message };
    notices.push(dto);
    emit({ event: 'app.notice', payload: dto });
  };
  const env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const window = await HostWindow.open({
    connect: { dataDir: options.dataDir, client: 'desktop', version: buildId(), env: options.env, launch: options.launch },
    window: {
      folder: options.folder,
      overrides: {},
      mounts: [],
      mcpConfig: [],
      cwd: options.cwd,
      env,
      desktop: { secretsFile: options.secretsFile, platform: options.platform },
    },
    answers: desktopAnswers({ cipher: options.cipher, pickFolder: options.pickFolder, openExternal: options.openExternal }),
    onHostGone: (line) => notice(`${line.charAt(0).toUpperCase()}${line.slice(1)}`),
  });
  const stopWindowEvents = window.onEvent(emit);
  const stopUpdateEvents = options.updates.onChange((status) => emit({ event: 'updates.changed', payload: status }));
  const updates: Partial<Record<MethodName, () => Promise<unknown>>> = updateMethods(options.updates);

  return {
    async handle(method, params) {
      const own = updates[method];
      if (own !== undefined) return own();
      if (method === 'app.notices') return [...((await window.handle(method, params)) as NoticeDto[]), ...notices];
      return window.handle(method, params);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notice,
    async workingThreads() {
      return (await window.hostRequest<{ threadIds: string[] }>('window.runs')).threadIds;
    },
    async stopRuns(threadIds) {
      await Promise.all(threadIds.map((threadId) => window.hostRequest('runs.stop', { threadId }).catch(() => undefined)));
    },
    async close() {
      stopWindowEvents();
      stopUpdateEvents();
      await window.close();
    },
  };
}
