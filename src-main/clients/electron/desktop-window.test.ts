// The desktop app's window as a client of a real agent host (SPEC §16), its Electron parts
// (safeStorage, the native dialog) stood in for by what the shell passes: without a folder it
// opens on `Open folder`, the dialog the host asks for opens the folder picked in place, keys
// saved in Settings land encrypted in the desktop app's own file (the host asks it to
// encrypt), runs outlive the window, and a host that dies is told and replaced.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { MethodName, Params, Result, ThreadView } from '../../app/contract';
import type { SecretCipher } from '../../app/settings/encrypted-file-secret-store';
import { notApplicableUpdates } from '../../app/base/updates';
import { startTestSshd } from '../../core/backends/remote/testing/sshd';
import { startScriptedServer, type ScriptedServer } from '../../core/models/testing/scripted-server';
import { hostPid } from '../../cli/host-harness.test-support';
import { repo } from '../../cli/cli-harness.test-support';
import { defaultHostLaunch } from '../host-client/launch';
import { openDesktopWindow, type DesktopWindow } from './desktop-window';

let root: string;
let dataDir: string;
let secretsFile: string;
const windows: DesktopWindow[] = [];

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before these tests (npm test does)');
});
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-desktop-')));
  dataDir = join(root, 'data');
  secretsFile = join(root, 'user-data', 'secrets.json');
  mkdirSync(join(root, 'user-data'));
});
afterEach(async () => {
  for (const window of windows.splice(0)) await window.close();
  const pid = hostPid(dataDir);
  if (pid !== undefined) process.kill(pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** The OS keychain as safeStorage answers: reversible here, visibly not the plain text. */
const decrypted: string[] = [];
const cipher: SecretCipher = {
  unavailableReason: async () => undefined,
  encrypt: async (plain) => Buffer.from(`v11${[...plain].reverse().join('')}`),
  decrypt: async (data) => {
    const text = data.toString('utf8');
    if (!text.startsWith('v11')) throw new Error('bad ciphertext');
    const plain = [...text.slice(3)].reverse().join('');
    decrypted.push(plain);
    return { plain, reEncrypt: false };
  },
  insecureReason: () => undefined,
};

async function open(folder: string | null, pickFolder: () => Promise<string | null> = () => Promise.resolve(null)) {
  const window = await openDesktopWindow({
    dataDir,
    folder,
    secretsFile,
    cipher,
    platform: 'linux',
    pickFolder,
    openExternal: async () => undefined,
    updates: notApplicableUpdates('9.9.9'),
    launch: defaultHostLaunch(dataDir, process.env),
    env: process.env,
    cwd: root,
  });
  windows.push(window);
  const call = <M extends MethodName>(method: M, params: Params<M>) => window.handle(method, params) as Promise<Result<M>>;
  return { window, call };
}

describe('the desktop app as a client of the agent host', () => {
  it('without a folder opens on Open folder without asking; the native dialog the host asks for opens the one picked, in place', async () => {
    const folder = join(root, 'proj');
    mkdirSync(folder);
    writeFileSync(join(folder, 'main.py'), 'print("hi")\n');
    const pickFolder = vi.fn<() => Promise<string | null>>().mockResolvedValue(null);
    const { call } = await open(null, pickFolder);
    expect(pickFolder).not.toHaveBeenCalled();
    expect(await call('app.info', {})).toMatchObject({ folder: null, folderName: '', transport: 'electron', canPickFolder: true });

    expect(await call('app.pickFolder', {})).toEqual({ folder: null });
    expect((await call('app.info', {})).folder).toBeNull();

    pickFolder.mockResolvedValue(folder);
    expect(await call('app.pickFolder', {})).toEqual({ folder });
    expect(await call('app.info', {})).toMatchObject({ folder, folderName: 'proj' });
    expect((await call('files.list', { path: '/' })).map((e) => e.path)).toEqual(['/main.py']);
    expect(readdirSync(folder)).toEqual(['main.py']);
    expect((await call('app.recentFolders', {})).map((f) => f.path)).toEqual([folder]);
    // The runs are the host's: it is another process.
    expect(hostPid(dataDir)).not.toBe(process.pid);
    expect(hostPid(dataDir)).toBeGreaterThan(0);
  });

  it('a key saved in Settings is encrypted by the desktop app’s keychain into its own file, never written to the data folder', async () => {
    const folder = join(root, 'keys');
    mkdirSync(folder);
    const { call } = await open(folder);
    expect((await call('settings.setApiKey', { provider: 'anthropic', key: 'sk-ant-desktop-1' })).apiKeys.anthropic).toBe(true);
    const stored = readFileSync(secretsFile, 'utf8');
    expect(stored).not.toContain('sk-ant-desktop-1');
    expect(Buffer.from((JSON.parse(stored) as { secrets: Record<string, string> }).secrets['api-key:anthropic']!, 'base64').toString('utf8')).toBe('v11' + [...'sk-ant-desktop-1'].reverse().join(''));
    for (const name of readdirSync(dataDir, { recursive: true }) as string[]) {
      const path = join(dataDir, name);
      try {
        expect(readFileSync(path).includes('sk-ant-desktop-1')).toBe(false);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EISDIR' && (err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
      }
    }
    // Read back through the keychain: the host asked the desktop app to decrypt it.
    decrypted.length = 0;
    await call('settings.testConnection', { model: 'anthropic:claude-sonnet-4-5', baseUrl: 'http://127.0.0.1:9' }).catch(() => undefined);
    expect(decrypted).toContain('sk-ant-desktop-1');
  });

  it('a run outlives the window: closed while it works, the next window sees it go on and end', async () => {
    const folder = join(root, 'runs');
    mkdirSync(folder);
    // The run works until the next window is open (not for a time the steps must fit in).
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const server: ScriptedServer = await startScriptedServer([async () => (await finished, { text: 'done without a window' })]);
    try {
      const first = await open(folder);
      await first.call('settings.update', { model: 'openai-compatible:scripted-model', baseUrl: server.url });
      const { id } = await first.call('threads.create', {});
      await first.call('threads.send', { threadId: id, text: 'take your time' });
      expect(await first.window.workingThreads()).toEqual([id]);
      await first.window.close();
      windows.splice(windows.indexOf(first.window), 1);

      const second = await open(folder);
      finish();
      await vi.waitFor(async () => expect(((await second.call('threads.get', { threadId: id })) as ThreadView).items.map((item) => (item.kind === 'assistant' ? item.text : item.kind))).toContain('done without a window'), { timeout: 60_000 });
      expect(await second.window.workingThreads()).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('Stop runs and quit: the working threads quitting asks about are stopped in the host', async () => {
    const folder = join(root, 'stop');
    mkdirSync(folder);
    const server: ScriptedServer = await startScriptedServer([{ delayMs: 30_000, then: { text: 'never' } }]);
    try {
      const { window, call } = await open(folder);
      await call('settings.update', { model: 'openai-compatible:scripted-model', baseUrl: server.url });
      const { id } = await call('threads.create', {});
      await call('threads.send', { threadId: id, text: 'a long one' });
      const working = await window.workingThreads();
      expect(working).toEqual([id]);
      await window.stopRuns(working);
      await vi.waitFor(async () => expect(await window.workingThreads()).toEqual([]), { timeout: 60_000 });
      expect(((await call('threads.get', { threadId: id })) as ThreadView).thread.running).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('a host that dies is told in one notice; a new one opens the same folder', async () => {
    const folder = join(root, 'again');
    mkdirSync(folder);
    const { window, call } = await open(folder);
    const notices: string[] = [];
    window.onEvent((frame) => {
      if (frame.event === 'app.notice') notices.push((frame.payload as { message: string }).message);
    });
    const pid = hostPid(dataDir)!;
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(() => expect(notices).toContainEqual(expect.stringMatching(/^The agent host stopped/)), { timeout: 60_000 });
    await vi.waitFor(() => expect(notices).toContain('The agent host is back'), { timeout: 60_000 });
    expect(await call('app.info', {})).toMatchObject({ folder });
    expect(hostPid(dataDir)).not.toBe(pid);
  });

  it('Connect in the Open remote folder dialog opens the window on the remote folder in place (a real sshd)', async () => {
    const sshd = await startTestSshd();
    try {
      vi.stubEnv('DEEPDESK_SSH_COMMAND', sshd.sshCommand);
      const remote = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-desktop-remote-')));
      onTestFinished(() => rmSync(remote, { recursive: true, force: true }));
      writeFileSync(join(remote, 'on-the-box.txt'), 'remote\n');
      const { call } = await open(null);
      const info = await call('app.openRemoteFolder', { host: 'deepdesk-test', path: remote });
      expect(info).toMatchObject({ folder: sshd.folderUrl(remote), folderName: basename(remote), host: 'deepdesk-test' });
      expect((await call('files.list', { path: '/' })).map((e) => e.path)).toEqual(['/on-the-box.txt']);
    } finally {
      vi.unstubAllEnvs();
      for (const window of windows.splice(0)) await window.close();
      await sshd.dispose();
    }
  });
});
