// The folder host both transports serve (issue 16): started without a folder it answers only
// the folder methods; `app.openFolder` opens a typed path (or says why not, changing nothing),
// replaces the previous folder's app, tells every window, creates nothing in the folder, and
// the recent folders are kept in the data folder as a durable JSON file.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../window/folder-app';
import type { EventFrame, MethodName, NoticeDto, Params, Result } from '../contract';
import { FileSecretStore } from '../settings/file-secret-store';
import { startTestSshd, type TestSshd } from '../../core/backends/remote/testing/sshd';
import { connectRemoteFolder } from '../places/folder-backend';
import { createWindowFolders, type WindowFolders, type WindowFoldersOptions } from './window-folders';
import { MAX_RECENT_FOLDERS, RecentFolders, typedFolderPath } from '../places/recent-folders';

let root: string;
let dataDir: string;
let home: string;
const hosts: WindowFolders[] = [];
const stores: FileSecretStore[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'deepdesk-folder-host-'));
  dataDir = join(root, 'data');
  home = join(root, 'home');
  mkdirSync(dataDir);
  mkdirSync(home);
});
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  for (const store of stores.splice(0)) store.close();
  rmSync(root, { recursive: true, force: true });
});

function project(name: string, files: Record<string, string> = { 'README.md': `# ${name}\n` }): string {
  const dir = join(home, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

async function start(folder: string | null, extra: Partial<WindowFoldersOptions> = {}) {
  const secrets = new FileSecretStore(dataDir);
  stores.push(secrets);
  const notices: NoticeDto[] = [];
  const host = await createWindowFolders({
    dataDir,
    transport: 'web',
    folder,
    home,
    onNotice: (notice) => notices.push(notice),
    openApp: (opened) => createApp({ folder: opened, dataDir, secrets, transport: 'web', env: { ...process.env, OPENAI_API_KEY: '' } }),
    openRemoteApp: () => Promise.reject(new Error('no remote folders in this test')),
    ...extra,
  });
  hosts.push(host);
  const events: EventFrame[] = [];
  host.onEvent((frame) => events.push(frame));
  const call = <M extends MethodName>(method: M, params: Params<M>) => host.handle(method, params) as Promise<Result<M>>;
  return { host, call, events, notices };
}

describe('the window folders', () => {
  it('without a folder answers the folder methods and refuses the rest until one is opened', async () => {
    const { call } = await start(null);
    expect(await call('app.info', {})).toEqual({ folder: null, folderName: '', version: '0.0.0', transport: 'web', canPickFolder: false });
    expect(await call('app.recentFolders', {})).toEqual([]);
    await expect(call('threads.list', {})).rejects.toThrow('No folder is open yet: open one first.');
    await expect(call('app.pickFolder', {})).rejects.toThrow(/no folder dialog here/);
    // Nothing for a folder exists yet: no database, no recent folders file.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('opens a typed path, tells every window, remembers it, and creates nothing in the folder', async () => {
    const folder = project('proj-a', { 'app.py': 'print(1)\n', 'test_app.py': 'def test(): assert False\n' });
    const before = readdirSync(folder).sort();
    const { call, events } = await start(null);

    const info = await call('app.openFolder', { path: '~/proj-a' });
    expect(info).toMatchObject({ folder, folderName: 'proj-a' });
    expect(events.filter((e) => e.event === 'app.folderChanged').map((e) => e.payload)).toEqual([info]);
    expect(await call('app.info', {})).toEqual(info);
    // The folder's own app answers now.
    const thread = await call('threads.create', {});
    expect((await call('threads.list', {})).map((t) => t.id)).toEqual([thread.id]);
    expect((await call('files.list', { path: '/' })).map((e) => e.path).sort()).toEqual(['/app.py', '/test_app.py']);
    expect(readdirSync(folder).sort()).toEqual(before);

    const recent = await call('app.recentFolders', {});
    expect(recent).toEqual([{ path: folder, name: 'proj-a', openedAt: expect.any(String), missing: false }]);
    const file = JSON.parse(readFileSync(join(dataDir, 'recent-folders.json'), 'utf8')) as { folders: Array<{ path: string }> };
    expect(file.folders.map((f) => f.path)).toEqual([folder]);
  });

  it('says why a path cannot be opened and keeps the folder that is open', async () => {
    const a = project('proj-a');
    writeFileSync(join(home, 'notes.txt'), 'not a folder\n');
    const { call, events } = await start(a);
    await expect(call('app.openFolder', { path: join(home, 'nowhere') })).rejects.toMatchObject({ message: `There is no folder at ${join(home, 'nowhere')}.`, code: 'not_found' });
    await expect(call('app.openFolder', { path: 'notes.txt' })).rejects.toMatchObject({
      message: `${join(home, 'notes.txt')} is a file, not a folder. Choose the folder that holds it.`,
      code: 'bad_request',
    });
    expect((await call('app.info', {})).folder).toBe(a);
    expect(events.some((e) => e.event === 'app.folderChanged')).toBe(false);
    // A folder whose app cannot be built leaves the open one too.
    const b = project('proj-b');
    const failing = await start(a, { openApp: (f) => (f === b ? Promise.reject(new Error('the sandbox could not start')) : createApp({ folder: f, dataDir, secrets: stores[0]!, transport: 'web' })) });
    await expect(failing.call('app.openFolder', { path: b })).rejects.toThrow('the sandbox could not start');
    expect((await failing.call('app.info', {})).folder).toBe(a);
    await failing.call('threads.list', {});
  });

  it('opening another folder replaces the app: its threads, files and terminals are the new folder’s', async () => {
    const a = project('proj-a', { 'a.txt': 'a\n' });
    const b = project('proj-b', { 'b.txt': 'b\n' });
    const { call, events } = await start(a);
    const inA = await call('threads.create', {});
    await call('app.openFolder', { path: b });
    expect((await call('threads.list', {})).map((t) => t.id)).not.toContain(inA.id);
    expect((await call('files.list', { path: '/' })).map((e) => e.path)).toEqual(['/b.txt']);
    // Events of the folder closed no longer reach the windows; the new one's do.
    const seen = events.length;
    const inB = await call('threads.create', {});
    await expect.poll(() => events.slice(seen).some((e) => e.event === 'threads.changed')).toBe(true);
    expect((await call('threads.list', {})).map((t) => t.id)).toEqual([inB.id]);
    // Reopening the first brings its threads back; the list is latest first, each once.
    await call('app.openFolder', { path: a });
    expect((await call('threads.list', {})).map((t) => t.id)).toEqual([inA.id]);
    expect((await call('app.recentFolders', {})).map((f) => f.name)).toEqual(['proj-a', 'proj-b']);
  });

  it('keeps the recent folders across restarts, marks the ones gone, and keeps a bounded list', async () => {
    const a = project('proj-a');
    const b = project('proj-b');
    const first = await start(a);
    await first.call('app.openFolder', { path: b });
    await first.host.close();
    hosts.splice(hosts.indexOf(first.host), 1);
    rmSync(a, { recursive: true });

    const { call } = await start(null);
    expect(await call('app.recentFolders', {})).toEqual([
      { path: b, name: 'proj-b', openedAt: expect.any(String), missing: false },
      { path: a, name: 'proj-a', openedAt: expect.any(String), missing: true },
    ]);

    const recent = new RecentFolders(dataDir);
    for (let i = 0; i < MAX_RECENT_FOLDERS + 3; i++) recent.remember(join(home, `p${i}`));
    const listed = recent.list();
    recent.close();
    expect(listed).toHaveLength(MAX_RECENT_FOLDERS);
    expect(listed[0]!.name).toBe(`p${MAX_RECENT_FOLDERS + 2}`);
  });

  it('an unreadable recent folders file is kept aside and told once, and the next open starts a new list', async () => {
    writeFileSync(join(dataDir, 'recent-folders.json'), '{"folders": [');
    const a = project('proj-a');
    const { call, notices } = await start(null);
    expect(notices.map((n) => n.message)).toEqual([expect.stringMatching(/^recent-folders\.json could not be read .*moved to .*recent-folders\.json\.corrupt-/)]);
    expect(await call('app.notices', {})).toEqual(notices);
    expect(await call('app.recentFolders', {})).toEqual([]);
    await call('app.openFolder', { path: a });
    expect((await call('app.recentFolders', {})).map((f) => f.path)).toEqual([a]);
    expect(readdirSync(dataDir).filter((f) => f.startsWith('recent-folders.json.corrupt-'))).toHaveLength(1);
  });

  it('tells a problem with the person’s settings once, however many folders are opened', async () => {
    writeFileSync(join(dataDir, 'settings.json'), '{"model": 5, "theme": "dark"}');
    const { call, notices, events } = await start(project('proj-a'));
    await call('app.openFolder', { path: project('proj-b') });
    await call('app.openFolder', { path: join(home, 'proj-a') });
    const about = notices.filter((n) => n.message.startsWith('settings.json: ignored model'));
    expect(about).toHaveLength(1);
    expect((await call('app.notices', {})).filter((n) => n.message.startsWith('settings.json'))).toHaveLength(1);
    expect(events.filter((e) => e.event === 'app.notice' && (e.payload as NoticeDto).message.startsWith('settings.json'))).toHaveLength(0);
  });

  it('the desktop’s native dialog opens the folder picked; cancelling changes nothing', async () => {
    const a = project('proj-a');
    let answer: string | null = null;
    const { call } = await start(null, { transport: 'electron', pickFolder: () => Promise.resolve(answer) });
    expect((await call('app.info', {})).canPickFolder).toBe(true);
    expect(await call('app.pickFolder', {})).toEqual({ folder: null });
    expect((await call('app.info', {})).folder).toBeNull();
    answer = a;
    expect(await call('app.pickFolder', {})).toEqual({ folder: a });
    expect(await call('app.info', {})).toMatchObject({ folder: a, folderName: basename(a), transport: 'electron' });
  });
});

describe('typed folder paths', () => {
  it('takes ~ and relative paths from the home folder, absolute ones as they are', () => {
    expect(typedFolderPath('~', '/home/ann')).toBe('/home/ann');
    expect(typedFolderPath('  ~/src/proj/ ', '/home/ann')).toBe('/home/ann/src/proj');
    expect(typedFolderPath('src/proj', '/home/ann')).toBe('/home/ann/src/proj');
    expect(typedFolderPath('/srv/proj/../other', '/home/ann')).toBe('/srv/other');
  });
});

describe('remote folders in the window folders (SPEC §13)', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startTestSshd();
  });
  afterAll(async () => {
    await sshd?.dispose();
  });

  /**
   * Connects and checks the folder over ssh as serve does; the remote is this machine, so the
   * folder's app is then built on the same folder as a local one (the remote app itself is
   * tested in app/remote-app.test.ts): what is tested here is the host's part.
   */
  const remoteApps = (): Partial<WindowFoldersOptions> => ({
    openRemoteApp: async (location) => {
      const connection = await connectRemoteFolder(location, { dataDir, sshCommand: sshd.sshCommand });
      await connection.close();
      return createApp({ folder: location.target.path, dataDir, secrets: stores[0]!, transport: 'web', env: { ...process.env, OPENAI_API_KEY: '' } });
    },
  });

  it('opens a host and a path: the folder is its ssh:// URL, named for its last segment, and listed among the recent ones with its host', async () => {
    const folder = project('remote-proj', { 'main.go': 'package main\n' });
    const local = project('local-proj');
    const { call, events } = await start(local, remoteApps());
    const info = await call('app.openRemoteFolder', { host: 'deepdesk-test', path: folder });
    const url = `ssh://deepdesk-test${folder}`;
    expect(info).toEqual({ folder: url, folderName: 'remote-proj', host: 'deepdesk-test', version: '0.0.0', transport: 'web', canPickFolder: false });
    expect(events.filter((e) => e.event === 'app.folderChanged').map((e) => e.payload)).toEqual([info]);
    expect((await call('files.list', { path: '/' })).map((e) => e.path)).toEqual(['/main.go']);
    expect(await call('app.recentFolders', {})).toEqual([
      { path: url, name: 'remote-proj', openedAt: expect.any(String), missing: false, host: 'deepdesk-test' },
      { path: local, name: 'local-proj', openedAt: expect.any(String), missing: false },
    ]);
    const saved = JSON.parse(readFileSync(join(dataDir, 'recent-folders.json'), 'utf8')) as { folders: Array<{ path: string }> };
    expect(saved.folders.map((f) => f.path)).toEqual([url, local]);

    // A recent remote opens again by its URL (the Open folder list, or typed).
    await call('app.openFolder', { path: local });
    expect(await call('app.openFolder', { path: url })).toEqual(info);
    // Its entry stays listed after the folder is gone: that is known on connecting.
    rmSync(folder, { recursive: true });
    await call('app.openFolder', { path: local });
    expect((await call('app.recentFolders', {})).find((f) => f.path === url)).toMatchObject({ missing: false, host: 'deepdesk-test' });
  });

  it('says what is wrong with a host or path, or with the folder there, and keeps the folder that is open', async () => {
    const local = project('local-proj');
    const file = join(home, 'notes.txt');
    writeFileSync(file, 'x\n');
    const { call, events } = await start(local, remoteApps());
    await expect(call('app.openRemoteFolder', { host: '', path: '/srv' })).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/^Enter the host/) });
    await expect(call('app.openRemoteFolder', { host: 'deepdesk-test', path: 'relative/path' })).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/must be absolute/) });
    await expect(call('app.openRemoteFolder', { host: 'deepdesk-test:70000', path: '/srv' })).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/port/) });
    await expect(call('app.openFolder', { path: 'ssh://deepdesk-test' })).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/absolute path/) });
    await expect(call('app.openRemoteFolder', { host: 'deepdesk-test', path: join(home, 'nowhere') })).rejects.toMatchObject({
      code: 'not_found',
      message: `There is no folder at deepdesk-test:${join(home, 'nowhere')}.`,
    });
    await expect(call('app.openRemoteFolder', { host: 'deepdesk-test', path: file })).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/is a file, not a folder/) });
    await sshd.stop();
    try {
      await expect(call('app.openRemoteFolder', { host: 'deepdesk-test', path: local })).rejects.toMatchObject({ code: 'failed', message: expect.stringContaining('deepdesk-test') });
    } finally {
      await sshd.start();
    }
    expect((await call('app.info', {})).folder).toBe(local);
    expect(events.some((e) => e.event === 'app.folderChanged')).toBe(false);
    expect((await call('app.recentFolders', {})).map((f) => f.path)).toEqual([local]);
  });

  it('lists the Host aliases of the person’s ~/.ssh/config, or of DEEPDESK_SSH_CONFIG', async () => {
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'config'), 'Host devbox gpu *.corp\nInclude more\n');
    writeFileSync(join(home, '.ssh', 'more'), 'Host vm1\n');
    const { call } = await start(null, { env: {} });
    expect(await call('app.sshHosts', {})).toEqual({ hosts: ['devbox', 'gpu', 'vm1'] });
    const elsewhere = join(root, 'test-ssh-config');
    writeFileSync(elsewhere, 'Host from-env\n');
    const other = await start(null, { env: { DEEPDESK_SSH_CONFIG: elsewhere } });
    expect(await other.call('app.sshHosts', {})).toEqual({ hosts: ['from-env'] });
  });
});
