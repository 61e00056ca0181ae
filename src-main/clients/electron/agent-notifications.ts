// The desktop app's OS notifications (SPEC §16): when a thread newly needs the person, or
// finishes or fails, while the window is not focused (or there is none: the app runs in the
// background), Electron's Notification says so. The main process lists the Agents view
// again on each `agentsView.changed` of the window's folders (a burst makes one listing), diffs
// it with the listing before (agentNotices, shared with the browser's window), and shows one
// notification a notice. Clicking one brings the window up and sends its page
// `agentsView.openThread`, which opens the thread as a row of the Agents view does. The page
// itself never shows notifications in the desktop app.

import { Notification, type BrowserWindow } from 'electron';
import { z } from 'zod';
import { agentNotices, agentSchema, type AgentDto, type AgentNotice, type EventFrame } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { EVENT_CHANNEL } from './bridge-api';

const agentList = z.array(agentSchema);

export interface AgentNotificationOptions {
  api: WindowApi;
  /** The main window, when one is open. */
  window(): BrowserWindow | null;
  /** Opens a window when there is none (the app kept its runs going in the background). */
  openWindow(): BrowserWindow | null;
  /** How long a burst of `agentsView.changed` waits for the rest before one listing (ms). */
  relistMs?: number;
}

export interface AgentNotifications {
  /** Lists now (the first listing is where things stand: nothing is told about it). */
  relist(): Promise<void>;
  stop(): void;
}

export function watchAgentNotifications(options: AgentNotificationOptions): AgentNotifications {
  const relistMs = options.relistMs ?? 200;
  let previous: AgentDto[] | null = null;
  let stopped = false;
  /** Kept while shown: a notification that is collected loses its click. */
  const shown = new Set<Notification>();

  const send = (window: BrowserWindow, frame: EventFrame): void => {
    if (!window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, frame);
  };

  const openThread = (threadId: string): void => {
    const frame: EventFrame = { event: 'agentsView.openThread', payload: { threadId } };
    const window = options.window();
    if (window !== null && !window.isDestroyed()) {
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
      send(window, frame);
      return;
    }
    const opened = options.openWindow();
    if (opened === null) return;
    // A new page loads on the window's folders' open folder: make it the thread's now, and tell the
    // page once it loaded (the workspace it opens on selects the thread then).
    void options.api.handle('agentsView.open', { threadId }).catch(() => undefined);
    opened.webContents.once('did-finish-load', () => send(opened, frame));
  };

  const show = (notice: AgentNotice): void => {
    const notification = new Notification({ title: notice.title, body: notice.body });
    shown.add(notification);
    notification.on('close', () => shown.delete(notification));
    notification.on('click', () => {
      shown.delete(notification);
      openThread(notice.threadId);
    });
    notification.show();
  };

  const list = async (): Promise<void> => {
    let next: AgentDto[];
    try {
      next = agentList.parse(await options.api.handle('agentsView.list', {}));
    } catch {
      // Not listed this time (the app is starting or closing): the next change lists again.
      return;
    }
    const before = previous;
    previous = next;
    if (before === null || stopped) return;
    const notices = agentNotices(before, next);
    if (notices.length === 0 || !Notification.isSupported()) return;
    const window = options.window();
    // The person is looking at the window: its Agents view and title say it.
    if (window !== null && !window.isDestroyed() && window.isFocused()) return;
    for (const notice of notices) show(notice);
  };

  // One listing at a time; a change during one lists once more after it.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  const run = (): Promise<void> => {
    timer = undefined;
    if (stopped) return Promise.resolve();
    if (running !== null) {
      again = true;
      return running;
    }
    running = list().finally(() => {
      running = null;
      if (again && !stopped) {
        again = false;
        void run();
      }
    });
    return running;
  };
  const request = (): void => {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(() => void run(), relistMs);
  };

  // A folder opened: the first one in a new data folder makes the records the list is read
  // from (and a listing then starts their changes coming).
  const unsubscribe = options.api.onEvent((frame) => {
    if (frame.event === 'agentsView.changed' || frame.event === 'app.folderChanged') request();
  });
  void run();

  return {
    relist: async () => {
      if (timer !== undefined) clearTimeout(timer);
      await run();
      // A listing asked for while one ran.
      while (running !== null) await running;
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      unsubscribe();
      for (const notification of shown) notification.close();
      shown.clear();
    },
  };
}
