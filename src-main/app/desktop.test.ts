// The app as the Electron shell starts it (the shell's own wiring is host/electron/main.ts):
// without a folder on the command line it opens on `Open folder` instead of asking at once;
// the native dialog (faked here, as the shell passes it) opens the folder picked in place, and
// a typed path works as in the browser.

import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MethodName, Params, Result } from './contract';
import { startTestSshd } from '../core/backends/remote/testing/sshd';
import { createDesktopApp } from './desktop';
import type { FolderHost } from './folders/folder-host';
import type { SecretStore } from './secret-store';

let root: string;
const hosts: FolderHost[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'deepdesk-desktop-'));
});
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  rmSync(root, { recursive: true, force: true });
});

/** The OS keychain, as the shell's safeStorage store answers. */
function keychain(): SecretStore {
  const kept = new Map<string, string>();
  return {
    get: async (name) => kept.get(name),
    set: async (name, value) => void kept.set(name, value),
    delete: async (name) => void kept.delete(name),
  };
}

async function start(folder: string | null, pickFolder: () => Promise<string | null>) {
  const dataDir = join(root, 'data');
  mkdirSync(dataDir, { recursive: true });
  const host = await createDesktopApp({ folder, dataDir, secrets: keychain(), pickFolder, version: '9.9.9' });
  hosts.push(host);
  const call = <M extends MethodName>(method: M, params: Params<M>) => host.handle(method, params) as Promise<Result<M>>;
  return { host, call };
}

describe('the desktop app', () => {
  it('without a folder opens on Open folder without asking; the native dialog opens the one picked, in place', async () => {
    const folder = join(root, 'proj');
    mkdirSync(folder);
    writeFileSync(join(folder, 'main.py'), 'print("hi")\n');
    const pickFolder = vi.fn<() => Promise<string | null>>().mockResolvedValue(null);
    const { call } = await start(null, pickFolder);
    expect(pickFolder).not.toHaveBeenCalled();
    expect(await call('app.info', {})).toEqual({ folder: null, folderName: '', version: '9.9.9', transport: 'electron', canPickFolder: true });

    expect(await call('app.pickFolder', {})).toEqual({ folder: null });
    expect((await call('app.info', {})).folder).toBeNull();

    pickFolder.mockResolvedValue(folder);
    expect(await call('app.pickFolder', {})).toEqual({ folder });
    expect(await call('app.info', {})).toMatchObject({ folder, folderName: 'proj' });
    expect((await call('files.list', { path: '/' })).map((e) => e.path)).toEqual(['/main.py']);
    expect(readdirSync(folder)).toEqual(['main.py']);
    expect((await call('app.recentFolders', {})).map((f) => f.path)).toEqual([folder]);
  });

  it('opens the folder given on the command line directly', async () => {
    const folder = join(root, 'given');
    mkdirSync(folder);
    const { call } = await start(folder, () => Promise.resolve(null));
    expect((await call('app.info', {})).folder).toBe(folder);
    await call('threads.list', {});
  });

  it('Connect in the Open remote folder dialog opens the window on the remote folder in place (a real sshd)', async () => {
    const sshd = await startTestSshd();
    try {
      vi.stubEnv('DEEPDESK_SSH_COMMAND', sshd.sshCommand);
      const remote = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-desktop-remote-')));
      writeFileSync(join(remote, 'on-the-box.txt'), 'remote\n');
      const { call } = await start(null, () => Promise.resolve(null));
      const info = await call('app.openRemoteFolder', { host: 'deepdesk-test', path: remote });
      expect(info).toMatchObject({ folder: sshd.folderUrl(remote), folderName: basename(remote), host: 'deepdesk-test' });
      expect((await call('files.list', { path: '/' })).map((e) => e.path)).toEqual(['/on-the-box.txt']);
      rmSync(remote, { recursive: true, force: true });
    } finally {
      vi.unstubAllEnvs();
      for (const host of hosts.splice(0)) await host.close();
      await sshd.dispose();
    }
  });
});
