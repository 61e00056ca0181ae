// The desktop app's OS notifications (SPEC §16), over the faked `electron` module: a thread
// that newly needs the person or finishes, while the window is not focused, is shown as a
// Notification; nothing while the window is focused, nothing about where things stood at
// start; a burst of agentsView.changed makes one listing; clicking one brings the window up
// and sends its page agentsView.openThread; with no window, one opens on the thread's folder.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentDto, EventFrame } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';
import { watchAgentNotifications, type AgentNotifications } from './agent-notifications';
import { EVENT_CHANNEL } from './bridge-api';
import { electron, fake, resetFakeElectron, type FakeBrowserWindow } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);

const agent = (threadId: string, state: AgentDto['state'], title = `Thread ${threadId}`): AgentDto => ({
  threadId,
  title,
  folder: '/home/p/calc',
  folderName: 'calc',
  state,
  startedAt: '2025-01-01T10:00:00.000Z',
  sharesFolder: false,
});

/** The folder host as far as notifications go: its Agents list (set by the test), its events, what it was asked. */
function fakeHost() {
  let listed: AgentDto[] = [];
  const listeners = new Set<(frame: EventFrame) => void>();
  const calls: Array<[string, unknown]> = [];
  const api: WindowApi = {
    async handle(method, params) {
      calls.push([method, params]);
      if (method === 'agentsView.list') return structuredClone(listed);
      if (method === 'agentsView.open') return { info: {}, threadId: (params as { threadId: string }).threadId };
      throw new Error(`unexpected ${method}`);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    api,
    calls,
    lists: () => calls.filter(([m]) => m === 'agentsView.list').length,
    set: (next: AgentDto[]) => (listed = next),
    changed: () => {
      for (const l of listeners) l({ event: 'agentsView.changed', payload: {} });
    },
    listeners,
  };
}

describe('OS notifications of the Agents view', () => {
  let watcher: AgentNotifications | undefined;
  let window: FakeBrowserWindow;
  beforeEach(() => {
    resetFakeElectron();
    window = new electron.BrowserWindow();
  });
  afterEach(() => {
    watcher?.stop();
    watcher = undefined;
    vi.useRealTimers();
  });

  const watch = (host: ReturnType<typeof fakeHost>, current: () => FakeBrowserWindow | null = () => window, openWindow: () => FakeBrowserWindow | null = () => null) =>
    watchAgentNotifications({
      api: host.api,
      window: current as never,
      openWindow: openWindow as never,
      relistMs: 50,
    });

  it('tells what newly needs the person or finished while the window is not focused, and nothing about where things stood', async () => {
    const host = fakeHost();
    host.set([agent('a', 'working', 'Fix tests'), agent('b', 'done', 'Old one')]);
    watcher = watch(host);
    await watcher.relist();
    expect(fake.notifications).toEqual([]);

    host.set([agent('a', 'needs-you', 'Fix tests'), agent('b', 'done', 'Old one'), agent('c', 'working')]);
    await watcher.relist();
    expect(fake.notifications.map((n) => [n.options.title, n.options.body, n.shown])).toEqual([['“Fix tests” needs you', 'It waits for your answer in calc.', true]]);

    host.set([agent('a', 'done', 'Fix tests'), agent('c', 'failed')]);
    await watcher.relist();
    expect(fake.notifications.slice(1).map((n) => n.options.title)).toEqual(['“Fix tests” is done', '“Thread c” failed']);
  });

  it('shows nothing while the window is focused (its own Agents view says it)', async () => {
    const host = fakeHost();
    host.set([agent('a', 'working')]);
    watcher = watch(host);
    await watcher.relist();
    window.focus();
    host.set([agent('a', 'needs-you')]);
    await watcher.relist();
    expect(fake.notifications).toEqual([]);
    // Nor later about that change: the window was told.
    window.blur();
    await watcher.relist();
    expect(fake.notifications).toEqual([]);
  });

  it('lists once for a burst of agentsView.changed', async () => {
    const host = fakeHost();
    watcher = watch(host);
    await watcher.relist();
    const before = host.lists();
    host.set([agent('a', 'done')]);
    for (let i = 0; i < 5; i++) host.changed();
    await expect.poll(() => host.lists()).toBe(before + 1);
    await new Promise((r) => setTimeout(r, 120));
    expect(host.lists()).toBe(before + 1);
    expect(fake.notifications.map((n) => n.options.title)).toEqual(['“Thread a” is done']);
  });

  it('a click brings the window up and sends its page agentsView.openThread', async () => {
    const host = fakeHost();
    host.set([agent('a', 'working')]);
    watcher = watch(host);
    await watcher.relist();
    window.minimized = true;
    host.set([agent('a', 'needs-you')]);
    await watcher.relist();
    fake.notifications[0]!.click();
    expect(window.minimized).toBe(false);
    expect(window.shown).toBe(true);
    expect(window.focused).toBe(true);
    expect(window.webContents.sent).toEqual([[EVENT_CHANNEL, { event: 'agentsView.openThread', payload: { threadId: 'a' } }]]);
  });

  it('with no window (running in the background), a click opens one on the thread and tells its page once loaded', async () => {
    const host = fakeHost();
    host.set([agent('a', 'working')]);
    let current: FakeBrowserWindow | null = null;
    watcher = watch(
      host,
      () => current,
      () => (current = new electron.BrowserWindow()),
    );
    await watcher.relist();
    host.set([agent('a', 'done')]);
    await watcher.relist();
    expect(fake.notifications).toHaveLength(1);
    fake.notifications[0]!.click();
    expect(current).not.toBeNull();
    await expect.poll(() => host.calls).toContainEqual(['agentsView.open', { threadId: 'a' }]);
    const opened = current as unknown as FakeBrowserWindow;
    expect(opened.webContents.sent).toEqual([]);
    opened.webContents.emit('did-finish-load');
    expect(opened.webContents.sent).toEqual([[EVENT_CHANNEL, { event: 'agentsView.openThread', payload: { threadId: 'a' } }]]);
  });

  it('shows nothing where notifications are not supported, tells nothing after stop, and a failed listing changes nothing', async () => {
    const host = fakeHost();
    host.set([agent('a', 'working')]);
    watcher = watch(host);
    await watcher.relist();
    fake.notificationsSupported = false;
    host.set([agent('a', 'needs-you')]);
    await watcher.relist();
    expect(fake.notifications).toEqual([]);
    fake.notificationsSupported = true;

    // A listing that fails keeps the one before: the change is told when a listing works again.
    const handle = host.api.handle;
    host.api.handle = async () => {
      throw new Error('closing');
    };
    host.set([agent('a', 'done')]);
    await watcher.relist();
    expect(fake.notifications).toEqual([]);
    host.api.handle = handle;
    await watcher.relist();
    expect(fake.notifications.map((n) => n.options.title)).toEqual(['“Thread a” is done']);

    watcher.stop();
    expect(fake.notifications[0]!.closed).toBe(true);
    expect(host.listeners.size).toBe(0);
    host.set([agent('a', 'failed')]);
    await watcher.relist();
    expect(fake.notifications).toHaveLength(1);
  });
});
