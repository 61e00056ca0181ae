// The window's app on a remote folder (SPEC §13), through the contract: a real sshd on
// 127.0.0.1 (this machine, so the folder is set up and checked with node:fs), real SQLite,
// real ptys, the scripted model server.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { textOf, toolMessages } from '../../core/agent/agent-harness.test-support';
import { startScriptedServer, type ScriptedServer } from '../../core/models/testing/scripted-server';
import { FilesystemBackend } from '../../core/backends/filesystem/filesystem';
import { startTestSshd, type TestSshd } from '../../core/backends/remote/testing/sshd';
import { detectSandbox } from '../../core/sandbox';
import { createApp, type App } from './folder-app';
import { parseRequest, type EventFrame, type MethodName, type Params, type Result } from '../contract';
import { sshFolderLocation } from '../places/folder-location';
import { openRemoteApp, remoteFolderConfiguration } from '../places/remote-folder';
import { FileSecretStore } from '../settings/file-secret-store';

const bwrap = (await detectSandbox()).available;
let sshd: TestSshd;
let root: string;
let folder: string;
let dataDir: string;
let server: ScriptedServer;
const apps: App[] = [];

beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});
beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-remote-app-')));
  folder = join(root, 'project');
  dataDir = join(root, 'data');
  mkdirSync(folder);
  mkdirSync(dataDir);
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

async function open(options: { remoteSandbox?: boolean } = {}) {
  const location = sshFolderLocation(sshd.folderUrl(folder));
  const env = { ...process.env, OPENAI_API_KEY: '', DEEPDESK_REMOTE_POLL_MS: '100' };
  const app = await openRemoteApp(location, { dataDir, sshCommand: sshd.sshCommand, env, ...options }, (remote) =>
    createApp({
      folder: location.url,
      remote,
      dataDir,
      secrets: new FileSecretStore(dataDir),
      transport: 'web',
      overrides: { model: 'openai-compatible:scripted-model', baseUrl: server.url },
      env,
    }),
  );
  apps.push(app);
  const events: EventFrame[] = [];
  app.onEvent((frame) => events.push(frame));
  const call = async <M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> => {
    const parsed = parseRequest({ id: 1, method, params });
    return app.handle(parsed.method, parsed.params as never) as Promise<Result<M>>;
  };
  return { app, call, events };
}

const isDone = (threadId: string) => (e: EventFrame) =>
  e.event === 'thread.event' && (e.payload as { threadId: string; event: { type: string } }).threadId === threadId && (e.payload as { event: { type: string } }).event.type === 'done';

describe('the app on a remote folder', () => {
  it('lists and reads the remote folder, and follows a change made there by polling the folders the tree opened', async () => {
    writeFileSync(join(folder, 'readme.md'), '# remote\n');
    mkdirSync(join(folder, 'src'));
    writeFileSync(join(folder, 'src', 'main.ts'), 'export {};\n');
    const { call, events } = await open();
    expect((await call('files.list', { path: '/' })).map((e) => [e.path, e.isDir])).toEqual([
      ['/readme.md', false],
      ['/src/', true],
    ]);
    // As the local folder's backend shows it.
    const local = await new FilesystemBackend({ rootDir: folder }).read('/readme.md', 0, Number.MAX_SAFE_INTEGER);
    expect(await call('files.read', { path: '/readme.md' })).toEqual({ kind: 'text', path: '/readme.md', text: local.fileData!.content, truncated: false });
    await call('files.list', { path: '/src' });
    writeFileSync(join(folder, 'src', 'added.ts'), 'x\n');
    writeFileSync(join(folder, 'later.txt'), 'y\n');
    const changed = () => events.filter((e) => e.event === 'files.changed').flatMap((e) => (e.payload as { paths: Array<{ path: string; kind: string }> }).paths);
    await expect.poll(changed, { timeout: 60_000 }).toEqual(expect.arrayContaining([{ path: '/src/added.ts', kind: 'add' }, { path: '/later.txt', kind: 'add' }]));
    expect(await call('files.search', { query: 'added' })).toEqual(['/src/added.ts']);
  });

  it('dims what the remote folder\'s .gitignore files ignore, as for a local folder', async () => {
    writeFileSync(join(folder, '.gitignore'), 'dist/\n*.log\n');
    mkdirSync(join(folder, 'dist'));
    mkdirSync(join(folder, 'pkg', 'build'), { recursive: true });
    writeFileSync(join(folder, 'pkg', '.gitignore'), 'build/\n!keep.log\n');
    writeFileSync(join(folder, 'pkg', 'keep.log'), '');
    writeFileSync(join(folder, 'pkg', 'other.log'), '');
    writeFileSync(join(folder, 'app.log'), '');
    const { call } = await open();
    const dimmed = async (path: string) => (await call('files.list', { path })).filter((e) => e.ignored === true).map((e) => e.path);
    expect(await dimmed('/')).toEqual(['/app.log', '/dist/']);
    expect(await dimmed('/pkg')).toEqual(['/pkg/build/', '/pkg/other.log']);
  });

  it("says once what it does not do on a remote folder; the agent's changes there are checkpointed, and Revert puts the file back on the remote", async () => {
    writeFileSync(join(folder, 'kept.txt'), 'before\n');
    writeFileSync(join(folder, '.mcp.json'), '{"mcpServers":{}}\n');
    mkdirSync(join(folder, '.claude', 'skills', 'demo'), { recursive: true });
    writeFileSync(join(folder, '.claude', 'settings.json'), '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}\n');
    writeFileSync(join(folder, '.claude', 'skills', 'demo', 'SKILL.md'), '---\nname: demo\ndescription: d\n---\n');
    const { call, events } = await open();
    // Looked for in the background: the notice is information about this folder, with an id that stays the same.
    await expect.poll(async () => (await call('app.notices', {})).filter((n) => n.message.includes('is a remote folder')), { timeout: 60_000 }).toEqual([
      {
        id: `remote-config:${sshd.folderUrl(folder)}:.mcp.json,hooks,skills`,
        message: `deepdesk-test:${folder} is a remote folder: its own configuration (.mcp.json, hooks, skills) is not loaded in this version.`,
        kind: 'info',
        folder: sshd.folderUrl(folder),
      },
    ]);
    await call('mode.set', { mode: 'auto' }).catch(() => undefined);
    server.push(
      { toolCalls: [{ name: 'read_file', args: { file_path: '/kept.txt' } }] },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/kept.txt', content: 'after\n' } }] },
      { text: 'changed' },
    );
    const { id } = await call('threads.create', {});
    await call('threads.send', { threadId: id, text: 'change it' });
    await expect.poll(() => events.some(isDone(id)), { timeout: 60_000 }).toBe(true);
    expect(readFileSync(join(folder, 'kept.txt'), 'utf8')).toBe('after\n');
    const changes = await call('checkpoints.changes', { threadId: id });
    expect(changes.files.map((f) => f.path)).toEqual(['/kept.txt']);
    await call('checkpoints.revertFile', { threadId: id, path: '/kept.txt', resolution: 'ask' });
    expect(readFileSync(join(folder, 'kept.txt'), 'utf8')).toBe('before\n');
  });

  // Four steps over ssh: each session there runs the person's ~/.bashrc first (pyenv's rehash here), so the bounds only guard against a hang.
  it('marks what the agent did on the remote as it was: a new file added, a changed one modified, a removed one deleted', { timeout: 180_000 }, async () => {
    writeFileSync(join(folder, 'kept.txt'), 'before\n');
    writeFileSync(join(folder, 'gone.txt'), 'bye\n');
    writeFileSync(join(folder, 'ran.txt'), 'old\n');
    const { call, events } = await open();
    await call('mode.set', { mode: 'auto' }).catch(() => undefined);
    server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/src/pricing.py', content: 'PRICE = 1\n' } }] },
      { toolCalls: [{ name: 'read_file', args: { file_path: '/kept.txt' } }] },
      { toolCalls: [{ name: 'edit_file', args: { file_path: '/kept.txt', old_string: 'before', new_string: 'after' } }] },
      { toolCalls: [{ name: 'execute', args: { command: 'rm gone.txt; echo made > made.txt; echo new >> ran.txt' } }] },
      { text: 'changed' },
    );
    const { id } = await call('threads.create', {});
    await call('threads.send', { threadId: id, text: 'change things' });
    const approvals = async () => {
      for (const a of (await call('threads.get', { threadId: id })).approvals) await call('approvals.decide', { threadId: id, toolCallId: a.toolCallId, decision: { type: 'approve' } });
      return events.some(isDone(id));
    };
    await expect.poll(approvals, { timeout: 150_000 }).toBe(true);
    expect(readFileSync(join(folder, 'src', 'pricing.py'), 'utf8')).toBe('PRICE = 1\n');
    const changes = await call('checkpoints.changes', { threadId: id });
    expect(Object.fromEntries(changes.files.map((f) => [f.path, f.status]))).toEqual({
      '/src/pricing.py': 'added',
      '/kept.txt': 'modified',
      '/gone.txt': 'deleted',
      '/made.txt': 'added',
      '/ran.txt': 'modified',
    });
  });

  it.skipIf(!bwrap)("the header's sandbox is the remote's bubblewrap; without it, Not sandboxed with the reason", async () => {
    const sandboxed = await open();
    expect((await sandboxed.call('mode.get', {})).sandbox).toEqual({ available: true, kind: 'bubblewrap' });
    await sandboxed.app.close();
    apps.splice(0);
    const plain = await open({ remoteSandbox: false });
    expect((await plain.call('mode.get', {})).sandbox).toEqual({ available: false, reason: `deepdesk-test:${folder} has no usable bubblewrap` });
  });

  it('the agent reads and runs a command there, shown live in a command view of the thread', async () => {
    writeFileSync(join(folder, 'notes.txt'), 'remote notes\n');
    const { call, events } = await open();
    await call('mode.set', { mode: 'auto' }).catch(() => undefined);
    server.push(
      { toolCalls: [{ name: 'read_file', args: { file_path: '/notes.txt' } }] },
      { toolCalls: [{ name: 'execute', args: { command: 'echo ran > ran.txt; pwd' } }] },
      { text: 'done' },
    );
    const { id } = await call('threads.create', {});
    await call('threads.send', { threadId: id, text: 'work there' });
    const approvals = async () => {
      const pending = (await call('threads.get', { threadId: id })).approvals;
      for (const a of pending) await call('approvals.decide', { threadId: id, toolCallId: a.toolCallId, decision: { type: 'approve' } });
      return events.some(isDone(id));
    };
    await expect.poll(approvals, { timeout: 60_000 }).toBe(true);
    const [read, exec] = toolMessages(server.requests[2]!).map((m) => textOf(m.content));
    expect(read).toBe('     1\tremote notes');
    expect(exec).toContain(`${folder}\n`);
    expect(readFileSync(join(folder, 'ran.txt'), 'utf8')).toBe('ran\n');
    const terminals = await call('terminal.list', { threadId: id });
    expect(terminals.find((t) => t.kind === 'command')).toMatchObject({ kind: 'command', command: 'echo ran > ran.txt; pwd', running: false });
  });

  it('an approval of a command says it runs on the remote machine, and whether inside its sandbox', async () => {
    const { call, events } = await open({ remoteSandbox: false });
    server.push({ toolCalls: [{ name: 'execute', args: { command: 'echo here' } }] }, { text: 'done' });
    const { id } = await call('threads.create', {});
    await call('threads.send', { threadId: id, text: 'run it' });
    await expect.poll(async () => (await call('threads.get', { threadId: id })).approvals.length, { timeout: 60_000 }).toBe(1);
    const [pending] = (await call('threads.get', { threadId: id })).approvals;
    expect(pending!.runsOn).toEqual({ host: sshFolderLocation(sshd.folderUrl(folder)).target.host, sandboxed: false });
    await call('approvals.decide', { threadId: id, toolCallId: pending!.toolCallId, decision: { type: 'reject' } });
    await expect.poll(() => events.some(isDone(id)), { timeout: 60_000 }).toBe(true);
  });

  it("the person's shell tab is their login shell on the remote, in the folder", async () => {
    const { call, events } = await open();
    const { id } = await call('threads.create', {});
    await call('terminal.attach', { threadId: id });
    await call('terminal.input', { threadId: id, data: 'echo "at:$(pwd)"\r' });
    const shown = () =>
      events
        .filter((e) => e.event === 'terminal.data')
        .map((e) => (e.payload as { data: string }).data)
        .join('');
    await expect.poll(shown, { timeout: 60_000 }).toContain(`at:${folder}`);
  });

  it('finds the configuration a folder has of its own, and none where there is none', async () => {
    const files = new FilesystemBackend({ rootDir: folder });
    expect(await remoteFolderConfiguration(files)).toEqual([]);
    // An empty skills folder and Claude settings without hooks are nothing not loaded.
    mkdirSync(join(folder, '.agents', 'skills'), { recursive: true });
    mkdirSync(join(folder, '.claude'));
    writeFileSync(join(folder, '.claude', 'settings.json'), '{"permissions":{}}');
    expect(await remoteFolderConfiguration(files)).toEqual([]);
    mkdirSync(join(folder, '.agents', 'skills', 'one'));
    writeFileSync(join(folder, '.deepdesk-not-hooks.json'), '{}');
    expect(await remoteFolderConfiguration(files)).toEqual(['skills']);
    mkdirSync(join(folder, '.deepdesk'));
    writeFileSync(join(folder, '.deepdesk', 'hooks.json'), '{"hooks":{}}');
    expect(await remoteFolderConfiguration(files), 'a hooks file without hooks').toEqual(['skills']);
    writeFileSync(join(folder, '.deepdesk', 'hooks.json'), '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}');
    expect(await remoteFolderConfiguration(files)).toEqual(['hooks', 'skills']);
  });

  it('says nothing about its own configuration when the remote folder has none', async () => {
    writeFileSync(join(folder, 'a.txt'), 'a\n');
    const { call } = await open();
    // The look happens over the same connection as this listing: it is done once the listing is.
    await call('files.list', { path: '/' });
    await call('files.list', { path: '/' });
    expect((await call('app.notices', {})).filter((n) => n.message.includes('is a remote folder'))).toEqual([]);
  });

  it('a lost connection is an error naming the host, and the next call connects again', async () => {
    writeFileSync(join(folder, 'a.txt'), 'a\n');
    const { call, events } = await open();
    expect((await call('files.list', { path: '/' })).map((e) => e.path)).toEqual(['/a.txt']);
    await sshd.stop();
    try {
      await expect(call('files.read', { path: '/a.txt' })).rejects.toThrow(/deepdesk-test/);
      // The tree's polling tells the window once.
      const told = () => events.filter((e) => e.event === 'app.notice').map((e) => (e.payload as { message: string }).message);
      await expect.poll(told, { timeout: 60_000 }).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^The file tree cannot follow deepdesk-test:${folder} now: .*deepdesk-test.*\\. It keeps trying\\.$`))]));
    } finally {
      await sshd.start();
    }
    await expect.poll(async () => (await call('files.read', { path: '/a.txt' }).catch(() => null))?.kind, { timeout: 60_000 }).toBe('text');
  });
});
