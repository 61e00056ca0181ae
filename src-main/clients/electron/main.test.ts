// The desktop shell's start (`npm start` with Electron), over the faked `electron` module (Electron
// itself cannot run here) with the real window, hardening, IPC and keychain code on top: the
// app:// scheme is made privileged before 'ready' and the window loads app://deepdesk; with no
// folder on the command line the window opens on Open folder, and every way to open another
// folder (the window's dialog, File › Open Folder…, a second launch) opens it in place, in the
// same process, never by relaunching; a renderer crash reloads with a notice; updates are off
// and say why; a thread that finishes while the window is not focused is told by an OS
// notification whose click opens it; quitting closes the app.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CALL_CHANNEL, EVENT_CHANNEL } from './bridge-api';
import { electron, fake, FakeEvent } from './testing/fake-electron';
import { KEEP_RUNNING, quitChoice, quitQuestion, STOP_RUNS_AND_QUIT } from './quit-prompt';
import { startScriptedServer } from '../../core/models/testing/scripted-server';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);

const root = mkdtempSync(join(tmpdir(), 'deepdesk-electron-main-'));
const dataDir = join(root, 'data');
const project = join(root, 'proj');
const other = join(root, 'other');
mkdirSync(project);
mkdirSync(other);
writeFileSync(join(project, 'main.py'), 'print("hi")\n');
fake.paths.userData = join(root, 'user-data');
const resourcesPath = join(root, 'resources');
mkdirSync(resourcesPath);
Object.defineProperty(process, 'resourcesPath', { value: resourcesPath, configurable: true });

// `<packaged app> --data-dir DIR`: no folder.
const argv = process.argv;
process.argv = ['deepdesk', '--data-dir', dataDir];
await import('../../desktop-main');
process.argv = argv;

afterAll(async () => {
  // Quitting closes the app (will-quit waits for it, then quits).
  electron.app.emit('will-quit', new FakeEvent());
  await vi.waitFor(() => expect(fake.quits).toBeGreaterThan(0), { timeout: 60_000 });
  rmSync(root, { recursive: true, force: true });
});

const window = () => fake.windows[0]!;
const call = async (method: string, params: unknown = {}): Promise<unknown> => {
  const frame = (await electron.ipcMain.invoke(CALL_CHANNEL, window().webContents, window().webContents.mainFrame, { id: 1, method, params })) as {
    result?: unknown;
    error?: { message: string };
  };
  if (frame.error) throw new Error(frame.error.message);
  return frame.result;
};

describe('the desktop shell', () => {
  it('registers app:// as privileged before ready, sandboxes, and hands its launch to later ones', async () => {
    await expect.poll(() => fake.windows).toHaveLength(1);
    expect(electron.protocol.privileged).toEqual([
      { scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) },
    ]);
    expect(fake.sandboxEnabled).toBe(true);
    expect(fake.lockData).toEqual({ args: ['--data-dir', dataDir], cwd: process.cwd() });
  });

  it('loads the window from app://deepdesk, hardened, with DevTools and Reload out of the menu', () => {
    expect(window().webContents.loaded).toEqual(['app://deepdesk/index.html']);
    expect(window().options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: process.platform === 'darwin', devTools: false });
    expect(electron.session.defaultSession.protocol.isProtocolHandled('app')).toBe(true);
    // hardenContents ran on the window (web-contents-created): a link followed in the page opens in the browser.
    expect(window().webContents.navigate('https://example.com/')).toBe('cancelled');
    expect(electron.shell.opened).toEqual(['https://example.com/']);
    const menu = JSON.stringify(electron.Menu.current);
    expect(menu).not.toMatch(/toggleDevTools|"reload"|forceReload/);
  });

  it('asks nothing at start, opens on Open folder, and opens the folder picked in place', async () => {
    // The window's app is in the agent host, started for it (another process: it says its own version).
    await vi.waitFor(() => expect(call('app.info')).resolves.toMatchObject({ folder: null }), { timeout: 60_000 });
    expect(fake.dialogCalls).toEqual([]);
    expect(await call('app.info')).toEqual({ folder: null, folderName: '', version: expect.any(String), transport: 'electron', canPickFolder: true });

    fake.dialogAnswers.push({ canceled: true, filePaths: [] });
    expect(await call('app.pickFolder')).toEqual({ folder: null });
    fake.dialogAnswers.push({ canceled: false, filePaths: [project] });
    expect(await call('app.pickFolder')).toEqual({ folder: project });
    expect(await call('app.info')).toMatchObject({ folder: project, folderName: 'proj' });
    expect(((await call('files.list', { path: '/' })) as Array<{ path: string }>).map((e) => e.path)).toEqual(['/main.py']);
    expect(fake.relaunches).toEqual([]);
    expect(fake.exits).toEqual([]);
  });

  it('File › Open Folder… opens the folder in place too', async () => {
    fake.dialogAnswers.push({ canceled: false, filePaths: [other] });
    const template = (electron.Menu.current as { template: Array<{ label?: string; submenu?: Array<{ label?: string; click?: () => void }> }> }).template;
    template.find((m) => m.label === 'File')!.submenu!.find((i) => i.label === 'Open Folder…')!.click!();
    await expect.poll(() => call('app.info')).toMatchObject({ folder: other });
    expect(fake.relaunches).toEqual([]);
  });

  it('a second launch with a folder opens it in this window; its other --data-dir is told, not used', async () => {
    electron.app.emit('second-instance', new FakeEvent(), ['deepdesk', 'ignored'], '/', { args: ['--data-dir', join(root, 'elsewhere'), 'proj'], cwd: root });
    await expect.poll(() => call('app.info')).toMatchObject({ folder: project });
    expect(window().focused).toBe(true);
    const notices = (await call('app.notices')) as Array<{ message: string }>;
    expect(notices.map((n) => n.message)).toContainEqual(expect.stringContaining(`the second launch's --data-dir ${join(root, 'elsewhere')} was not used`));
    expect(fake.relaunches).toEqual([]);
  });

  it('reloads a crashed page, and the reloaded page hears why', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    window().webContents.processGone('crashed', 133);
    expect(window().webContents.reloads).toBe(1);
    await expect
      .poll(async () => ((await call('app.notices')) as Array<{ message: string }>).map((n) => n.message))
      .toContainEqual(expect.stringContaining('(crashed, exit code 133)'));
    error.mockRestore();
  });

  it('shows updates as off, saying that no publish target is configured', async () => {
    expect(await call('updates.status')).toMatchObject({ currentVersion: '1.2.3', state: 'off', canCheck: false, message: expect.stringContaining('no publish target') });
  });

  it('a thread that finishes while the window is not focused is told by an OS notification; its click brings the window up on it', async () => {
    const server = await startScriptedServer([{ delayMs: 300, then: { text: 'finished while you were away' } }]);
    try {
      await call('settings.update', { model: 'openai-compatible:scripted-model', baseUrl: server.url });
      const before = fake.notifications.length;
      window().blur();
      const { id } = (await call('threads.create')) as { id: string };
      await call('threads.send', { threadId: id, text: 'Tidy the imports' });
      await vi.waitFor(() => expect(fake.notifications.slice(before).map((n) => n.options.title)).toEqual(['“Tidy the imports” is done']), { timeout: 60_000 });
      const notice = fake.notifications.at(-1)!;
      expect(notice.shown).toBe(true);
      const sentBefore = window().webContents.sent.length;
      notice.click();
      expect(window().focused).toBe(true);
      expect(window().webContents.sent.slice(sentBefore)).toContainEqual([EVENT_CHANNEL, { event: 'agentsView.openThread', payload: { threadId: id } }]);
    } finally {
      await server.close();
    }
  });

  it('quitting with a thread working asks; kept in the background, the window closes, a launch shows it again, and it quits when the run ends', async () => {
    // The run goes on until the test lets it end (not for a time the steps below must fit in).
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const server = await startScriptedServer([async () => (await finished, { text: 'finished in the background' })]);
    try {
      await call('settings.update', { model: 'openai-compatible:scripted-model', baseUrl: server.url });
      const { id } = (await call('threads.create')) as { id: string };
      await call('threads.send', { threadId: id, text: 'take your time' });
      await expect.poll(async () => ((await call('threads.get', { threadId: id })) as { thread: { running: boolean } }).thread.running).toBe(true);
      const quitsBefore = fake.quits;
      const windowsBefore = fake.windows.length;
      fake.messageBoxAnswers.push(1);
      const quitting = new FakeEvent();
      electron.app.emit('before-quit', quitting);
      expect(quitting.defaultPrevented).toBe(true);
      await expect.poll(() => fake.messageBoxes).toHaveLength(1);
      expect(fake.messageBoxes[0]![0]).toMatchObject({ buttons: [STOP_RUNS_AND_QUIT, KEEP_RUNNING], cancelId: 1 });
      await expect.poll(() => fake.windows.at(-1)!.isDestroyed()).toBe(true);
      expect(fake.quits).toBe(quitsBefore);
      // A launch while in the background opens a window on the same app: the person is back,
      // and closing that window with the run still going asks again.
      electron.app.emit('second-instance', new FakeEvent(), ['deepdesk'], root, { args: [], cwd: root });
      expect(fake.windows).toHaveLength(windowsBefore + 1);
      fake.windows.at(-1)!.close();
      fake.messageBoxAnswers.push(1);
      // Quitting again (the last window closed) once the first wait has seen the person come back.
      await vi.waitFor(
        () => {
          electron.app.emit('before-quit', new FakeEvent());
          expect(fake.messageBoxes).toHaveLength(2);
        },
        { timeout: 10_000, interval: 200 },
      );
      expect(fake.quits).toBe(quitsBefore);
      finish();
      await vi.waitFor(() => expect(fake.quits).toBe(quitsBefore + 1), { timeout: 60_000 });
      expect(fake.messageBoxes).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("the question's first button stops the runs and quits; Escape keeps them", () => {
    expect(quitChoice(0)).toBe('quit');
    expect(quitChoice(1)).toBe('background');
    expect(quitQuestion()).toMatchObject({ buttons: ['Stop runs and quit', 'Keep running in the background'], cancelId: 1 });
  });
});
