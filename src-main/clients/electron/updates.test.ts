// Updates: off (saying why) without a signed publish target; with one, `Check for updates`
// reports what electron-updater found; macOS and Windows download and install on restart,
// Linux packages are only announced. The served window answers that updates do not apply.

import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UpdateStatus } from '../../app/contract';
import { createWindowFolders } from '../../app/folders/window-folders';
import { createElectronUpdates, updateTarget, type UpdaterLike } from './updates';

const dirs: string[] = [];
function resources(yml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'deepdesk-updates-'));
  dirs.push(dir);
  if (yml !== undefined) writeFileSync(join(dir, 'app-update.yml'), yml);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

class FakeUpdater extends EventEmitter implements UpdaterLike {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  installs = 0;
  constructor(private readonly answer: (u: FakeUpdater) => void) {
    super();
  }
  override on(event: string, listener: (...args: never[]) => void): this {
    return super.on(event, listener as (...args: unknown[]) => void);
  }
  async checkForUpdates(): Promise<unknown> {
    this.emit('checking-for-update');
    this.answer(this);
    return null;
  }
  quitAndInstall(): void {
    this.installs++;
  }
}

describe('the update target', () => {
  it('is off from a checkout, and without app-update.yml (no publish target), saying so', () => {
    expect(updateTarget({ packaged: false, resourcesPath: resources('provider: github\n'), platform: 'linux' })).toEqual({ kind: 'none', reason: expect.stringContaining('source checkout') });
    expect(updateTarget({ packaged: true, resourcesPath: resources(), platform: 'linux' })).toEqual({ kind: 'none', reason: expect.stringContaining('no publish target is configured') });
    expect(updateTarget({ packaged: true, resourcesPath: resources(': : :\n  - ['), platform: 'linux' }).kind).toBe('none');
    expect(updateTarget({ packaged: true, resourcesPath: resources('owner: me\n'), platform: 'linux' })).toEqual({ kind: 'none', reason: expect.stringContaining('names no provider') });
  });

  it('is on with a publish target; on Windows only with a signer to check updates against', () => {
    expect(updateTarget({ packaged: true, resourcesPath: resources('provider: github\nowner: deepdesk\nrepo: deepdesk\n'), platform: 'linux' })).toEqual({ kind: 'published', provider: 'github' });
    expect(updateTarget({ packaged: true, resourcesPath: resources('provider: generic\nurl: https://updates.example/\n'), platform: 'win32' })).toEqual({
      kind: 'none',
      reason: expect.stringContaining('not signed'),
    });
    expect(updateTarget({ packaged: true, resourcesPath: resources('provider: generic\nurl: https://u.example/\npublisherName:\n  - Deepdesk Ltd\n'), platform: 'win32' }).kind).toBe('published');
  });
});

describe('checking for updates', () => {
  const now = () => new Date('2026-11-23T10:00:00Z');

  it('does nothing when off, and never loads electron-updater', async () => {
    const loadUpdater = vi.fn();
    const updates = createElectronUpdates({ currentVersion: '0.1.0', target: { kind: 'none', reason: 'Updates are off: because.' }, platform: 'linux', loadUpdater, now });
    expect(updates.status()).toEqual({ currentVersion: '0.1.0', state: 'off', canCheck: false, message: 'Updates are off: because.' });
    expect(await updates.check()).toMatchObject({ state: 'off' });
    expect(loadUpdater).not.toHaveBeenCalled();
    expect(() => updates.install()).toThrow('no update has been downloaded');
  });

  it('says when this is the latest version', async () => {
    const updater = new FakeUpdater((u) => u.emit('update-not-available', { version: '0.1.0' }));
    const updates = createElectronUpdates({ currentVersion: '0.1.0', target: { kind: 'published', provider: 'github' }, platform: 'darwin', loadUpdater: async () => updater, now });
    const seen: UpdateStatus['state'][] = [];
    updates.onChange((s) => seen.push(s.state));
    expect(await updates.check()).toMatchObject({ state: 'up-to-date', message: 'Deepdesk 0.1.0 is the latest version.', checkedAt: '2026-11-23T10:00:00.000Z' });
    expect(seen).toContain('checking');
  });

  it('downloads on macOS and Windows, then installs on request', async () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const updater = new FakeUpdater((u) => {
        u.emit('update-available', { version: '0.2.0' });
        u.emit('download-progress', { percent: 42.7 });
        u.emit('update-downloaded', { version: '0.2.0' });
      });
      const updates = createElectronUpdates({ currentVersion: '0.1.0', target: { kind: 'published', provider: 'github' }, platform, loadUpdater: async () => updater, now });
      const messages: string[] = [];
      updates.onChange((s) => messages.push(s.message));
      expect(await updates.check()).toMatchObject({ state: 'downloaded', availableVersion: '0.2.0' });
      expect(updater.autoDownload).toBe(true);
      expect(messages).toContain('Downloading Deepdesk 0.2.0… 42%');
      updates.install();
      await expect.poll(() => updater.installs).toBe(1);
    }
  });

  it('only announces a newer version on Linux (no signature to check), downloading nothing', async () => {
    const updater = new FakeUpdater((u) => u.emit('update-available', { version: '0.2.0' }));
    const updates = createElectronUpdates({ currentVersion: '0.1.0', target: { kind: 'published', provider: 'github' }, platform: 'linux', loadUpdater: async () => updater, now });
    expect(await updates.check()).toMatchObject({ state: 'available', availableVersion: '0.2.0', message: expect.stringContaining('Deepdesk 0.2.0 is available') });
    expect(updater.autoDownload).toBe(false);
    expect(updater.autoInstallOnAppQuit).toBe(false);
    expect(() => updates.install()).toThrow();
  });

  it('reports a failed check with its reason', async () => {
    const updater = new FakeUpdater(() => {
      throw new Error('net::ERR_NAME_NOT_RESOLVED');
    });
    const updates = createElectronUpdates({ currentVersion: '0.1.0', target: { kind: 'published', provider: 'github' }, platform: 'win32', loadUpdater: async () => updater, now });
    expect(await updates.check()).toMatchObject({ state: 'error', message: 'The update check failed: net::ERR_NAME_NOT_RESOLVED' });
  });
});

describe('updates in the contract', () => {
  it('reach the window through the window folders, with their changes as events', async () => {
    const dataDir = resources();
    const updater = new FakeUpdater((u) => u.emit('update-not-available', {}));
    const updates = createElectronUpdates({ currentVersion: '0.1.0', target: { kind: 'published', provider: 'github' }, platform: 'darwin', loadUpdater: async () => updater });
    const host = await createWindowFolders({ dataDir, transport: 'electron', folder: null, openApp: () => Promise.reject(new Error('unused')), openRemoteApp: () => Promise.reject(new Error('unused')), updates });
    const events: string[] = [];
    host.onEvent((frame) => events.push(frame.event));
    expect(await host.handle('updates.status', {})).toMatchObject({ state: 'idle', canCheck: true });
    expect(await host.handle('updates.check', {})).toMatchObject({ state: 'up-to-date' });
    expect(events).toContain('updates.changed');
    await expect(host.handle('updates.install', {})).rejects.toThrow('no update has been downloaded');
    await host.close();
  });

  it('a check on a network that does not answer answers with checking at once; its result follows as an event', async () => {
    let answer: (() => void) | undefined;
    class SlowUpdater extends FakeUpdater {
      override async checkForUpdates(): Promise<unknown> {
        this.emit('checking-for-update');
        await new Promise<void>((resolve) => (answer = resolve));
        this.emit('update-not-available', {});
        return null;
      }
    }
    const updates = createElectronUpdates({ currentVersion: '0.1.0', target: { kind: 'published', provider: 'github' }, platform: 'darwin', loadUpdater: async () => new SlowUpdater(() => undefined) });
    const host = await createWindowFolders({ dataDir: resources(), transport: 'electron', folder: null, openApp: () => Promise.reject(new Error('unused')), openRemoteApp: () => Promise.reject(new Error('unused')), updates });
    const changes: unknown[] = [];
    host.onEvent((frame) => frame.event === 'updates.changed' && changes.push(frame.payload));
    // Answered while the updater's check still waits for `answer`: the call does not wait for it.
    expect(await host.handle('updates.check', {})).toMatchObject({ state: 'checking' });
    answer!();
    await expect.poll(() => changes.at(-1)).toMatchObject({ state: 'up-to-date' });
    await host.close();
  });

  it('are not applicable in the served window', async () => {
    const host = await createWindowFolders({ dataDir: resources(), transport: 'web', version: '0.1.0', folder: null, openApp: () => Promise.reject(new Error('unused')), openRemoteApp: () => Promise.reject(new Error('unused')) });
    expect(await host.handle('updates.status', {})).toMatchObject({ state: 'not-applicable', canCheck: false, currentVersion: '0.1.0', message: expect.stringContaining('deepdesk serve') });
    expect(await host.handle('updates.check', {})).toMatchObject({ state: 'not-applicable' });
    await host.close();
  });
});
