// `deepdesk run --folder ssh://…` (SPEC §13): the built bin against the scripted model server,
// the folder on a real sshd on 127.0.0.1 (this machine, so its files are checked with node:fs).
// The agent reads, writes and runs commands there, inside the remote's bubblewrap when it has one.
import { CheckpointStore } from '../core/checkpoints/store';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';
import { startTestSshd, type TestSshd } from '../core/backends/remote/testing/sshd';
import { detectSandbox } from '../core/sandbox';
import { openDatabase } from '../core/backends/store/store';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');
const bwrap = (await detectSandbox()).available;

let sshd: TestSshd;
let root: string;
let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(async () => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});
beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-run-remote-')));
  folder = join(root, 'project');
  dataDir = join(root, 'data');
  mkdirSync(folder);
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return deepdesk(['run', '--folder', sshd.folderUrl(folder), '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, ...args]);
}

function deepdesk(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_SSH_COMMAND: sshd.sshCommand },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

const NOTICE = (f: string) =>
  `deepdesk: deepdesk-test:${f} is a remote folder: its own configuration (.mcp.json) is not loaded in this version.\n`;

describe('deepdesk run on a remote folder', () => {
  it('reads, writes and runs a command in the remote folder, says once what it does not load, and records the thread under the URL', async () => {
    writeFileSync(join(folder, 'notes.txt'), 'remote notes\r\n');
    // A folder configuration that must not be read: it would start a server.
    writeFileSync(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { x: { command: 'touch', args: [join(root, 'started')] } } }));
    server.push(
      { toolCalls: [{ name: 'read_file', args: { file_path: '/notes.txt' } }] },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/made.txt', content: 'made\n' } }] },
      { toolCalls: [{ name: 'execute', args: { command: 'cat made.txt; pwd' } }] },
      { text: 'done there' },
    );
    const r = await run(['--approve', 'auto', 'work there']);
    expect(r.stderr).toBe(NOTICE(folder));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('done there\n');
    const [read, write, exec] = toolMessages(server.requests[3]!).map((m) => textOf(m.content));
    expect(read).toBe('     1\tremote notes');
    expect(write).toBe('Updated file /made.txt');
    // The remote user's shell start-up may print its own lines (this machine's pyenv does).
    expect(exec).toContain(`made\n${folder}\n`);
    expect(readFileSync(join(folder, 'made.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(join(root, 'started'))).toBe(false);
    const db = openDatabase(join(dataDir, 'deepdesk.db'));
    try {
      const rows = db.prepare('SELECT folder FROM threads').all() as Array<{ folder: string }>;
      expect(rows.map((row) => row.folder)).toEqual([sshd.folderUrl(folder)]);
    } finally {
      db.close();
    }
    // The step's change on the remote is checkpointed in the local data folder, under the folder's URL.
    const store = CheckpointStore.open(dataDir);
    try {
      expect(store.manifestRow(sshd.folderUrl(folder), 'made.txt')).toBeDefined();
      const threads = openDatabase(join(dataDir, 'deepdesk.db'));
      const [thread] = threads.prepare('SELECT id FROM threads').all() as Array<{ id: string }>;
      threads.close();
      const changed = store.checkpointsOfThread(thread!.id).flatMap((c) => store.entries(c).map((e) => e.path));
      expect(changed).toContain('made.txt');
      // `deepdesk checkpoints restore` connects to the checkpoint's remote folder and puts it back there.
      const first = store.checkpointsOfThread(thread!.id).find((c) => c.kind === 'agent')!;
      const restored = await deepdesk(['checkpoints', 'restore', first.id, '--data-dir', dataDir]);
      expect(restored.stderr).toBe('');
      expect(restored.stdout).toMatch(/^Restored 1 files\n/);
      expect(existsSync(join(folder, 'made.txt'))).toBe(false);
    } finally {
      store.close();
    }
  });

  it.skipIf(!bwrap)("the agent's commands run in the remote's bubblewrap: a write outside the folder is refused", async () => {
    const escape = join(root, 'escaped.txt');
    server.push({ toolCalls: [{ name: 'execute', args: { command: `echo out > ${escape}` } }] }, { text: 'tried' });
    const r = await run(['--approve', 'auto', '--mode', 'auto', 'try to leave']);
    expect(r.code).toBe(0);
    expect(existsSync(escape)).toBe(false);
    const [exec] = toolMessages(server.requests[1]!).map((m) => textOf(m.content));
    expect(exec).toContain('Read-only file system');
  });

  it('an unreachable host is one line naming it, exit 1', async () => {
    const child = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const c = spawn(process.execPath, [bin, 'run', '--folder', 'ssh://deepdesk-test:1/tmp', '--data-dir', dataDir, '--model', 'openai-compatible:m', '--base-url', server.url, 'hi'], {
        cwd: repo,
        env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_SSH_COMMAND: sshd.sshCommand },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      c.on('close', (code) => done({ code, stderr }));
    });
    expect(child.code).toBe(1);
    expect(child.stderr).toMatch(/^deepdesk run: cannot connect \(deepdesk-test:1\): .*\n$/);
  });
});
