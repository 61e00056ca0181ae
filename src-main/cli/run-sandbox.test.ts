// `deepdesk run` executes the agent's commands in the sandbox (SPEC §7): the built bin in a
// child process against the scripted model server, with commands that try to leave the
// folder and read the data folder.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';
import { detectSandbox } from '../core/sandbox';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');
const available = (await detectSandbox()).available;

let root: string;
let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-run-sbx-')));
  folder = join(root, 'project');
  dataDir = join(root, 'data');
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, ...args],
    { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

describe.skipIf(!available)('deepdesk run, sandboxed', () => {
  it('runs commands in the sandbox: the folder is writable, outside and the data folder are not', async () => {
    mkdirSync(folder);
    const escape = join(root, 'escaped.txt');
    server.push(
      {
        toolCalls: [
          { name: 'execute', args: { command: `echo inside > made.txt && cat made.txt; echo out > ${escape}` } },
          { name: 'execute', args: { command: `cat ${join(dataDir, 'deepdesk.db')} | head -c 16` } },
        ],
      },
      { text: 'tried' },
    );
    const r = await run(['--approve', 'auto', 'try to leave']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(join(folder, 'made.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(escape)).toBe(false);
    const [write, read] = toolMessages(server.requests[1]!).map((m) => textOf(m.content));
    expect(write).toBe(
      `inside\nbash: line 1: ${escape}: Read-only file system\n[Command failed with exit code 1]\n[Sandbox blocked a write to ${escape} (outside the project folder)]`,
    );
    expect(read).not.toContain('SQLite format');
    expect(read!.split('\n').at(-1)).toBe(`[Sandbox blocked access to ${join(dataDir, 'deepdesk.db')} (Deepdesk's data folder, hidden from commands)]`);
  });
});
