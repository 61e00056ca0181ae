// `deepdesk run --mode` as a person runs it: the built bin against the scripted model server.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';
import { createSandbox } from '../core/sandbox';
import { removeDataDir } from '../app/host/testing/remove-data-dir';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');
const PLAN_ERROR = 'Error: plan mode is read-only; ask the user to switch modes to make changes';

let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-mode-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-mode-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
  removeDataDir(dataDir, folder);
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, ...args], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

type Event = { type: string; name?: string; output?: string; status?: string };
const eventsOf = (stdout: string): Event[] => stdout.trim().split('\n').map((l) => JSON.parse(l) as Event);

const writeAndRun = {
  toolCalls: [
    { name: 'write_file', args: { file_path: '/w.txt', content: 'w\n' } },
    { name: 'execute', args: { command: 'echo x > x.txt; echo ran' } },
  ],
};

describe('deepdesk run --mode', () => {
  it('plan: writes and commands come back refused, nothing changes, nobody is asked', async () => {
    server.push(writeAndRun, { text: 'planned' });
    const r = await run(['--mode', 'plan', '--json', '--approve', 'auto', 'change it']);
    expect(r.code).toBe(0);
    const results = eventsOf(r.stdout).filter((e) => e.type === 'tool_result');
    expect(results.map((e) => e.output)).toEqual([PLAN_ERROR, PLAN_ERROR]);
    expect(eventsOf(r.stdout).some((e) => e.type === 'approval')).toBe(false);
    expect(existsSync(join(folder, 'w.txt'))).toBe(false);
    expect(existsSync(join(folder, 'x.txt'))).toBe(false);
    expect(String(server.requests[0]!.messages[0]!.content)).toContain('## Plan mode');
  });

  it('edit: the write runs without asking; the command asks (and --approve deny refuses it)', async () => {
    server.push(writeAndRun, { text: 'edited' });
    const r = await run(['--mode', 'edit', '--json', '--approve', 'deny', 'change it']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(folder, 'w.txt'), 'utf8')).toBe('w\n');
    expect(existsSync(join(folder, 'x.txt'))).toBe(false);
    const approvals = eventsOf(r.stdout).filter((e) => e.type === 'approval');
    expect(approvals.map((e) => e.name)).toEqual(['execute', 'execute']);
  });

  it('auto: commands run without asking where a sandbox exists, and auto is refused with the reason where none does', async () => {
    const sandbox = await createSandbox({ projectDir: realpathSync(folder), dataDir });
    server.push(writeAndRun, { text: 'done' });
    const r = await run(['--mode', 'auto', '--json', '--approve', 'deny', 'change it']);
    if (sandbox === undefined) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--mode auto needs a sandbox, and none is available: \S/);
      expect(server.requests).toHaveLength(0);
      return;
    }
    expect(r.code).toBe(0);
    expect(eventsOf(r.stdout).some((e) => e.type === 'approval')).toBe(false);
    expect(readFileSync(join(folder, 'x.txt'), 'utf8')).toBe('x\n');
  });

  it('refuses a mode that does not exist', async () => {
    const r = await run(['--mode', 'yolo', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--mode must be ask, edit, auto, plan');
  });
});
