// `deepdesk run` as a person runs it: the built bin in a child process, against the
// scripted OpenAI-compatible server.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as pty from 'node-pty';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertToolPairing, textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { startScriptedServer, type ScriptedServer, type ScriptStep } from '../core/models/testing/scripted-server';
import { hostPid } from './host-harness.test-support';
import { removeDataDir } from '../app/host/testing/remove-data-dir';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');

let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-run-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-run-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
  removeDataDir(dataDir, folder);
});

function start(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }>; stdout: () => string } {
  const child = spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, ...args], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveDone) => child.on('close', (code) => resolveDone({ code, stdout, stderr })));
  return { child, done, stdout: () => stdout };
}

const run = (args: string[]) => start(args).done;

describe('deepdesk run', () => {
  it('completes a multi-step task and prints the final answer', async () => {
    server.push(
      { toolCalls: [{ name: 'write_todos', args: { todos: [{ content: 'write the file', status: 'in_progress' }] } }] },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/hello.txt', content: 'hello\n' } }] },
      { toolCalls: [{ name: 'execute', args: { command: 'cat hello.txt && echo ran' } }] },
      { text: 'Created /hello.txt and checked it.' },
    );
    const r = await run(['--approve', 'auto', 'create hello.txt']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Created /hello.txt and checked it.\n');
    expect(readFileSync(join(folder, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(textOf(toolMessages(server.requests[3]!).at(-1)!.content)).toBe('hello\nran\n[Command succeeded with exit code 0]');
  });

  it('prints JSON events with the thread id, and continues a thread', async () => {
    server.push(
      { toolCalls: [{ name: 'write_todos', args: { todos: [{ content: 'a', status: 'pending' }] } }] },
      { text: 'first answer' },
    );
    const first = await run(['--json', '--thread', 'my-thread', 'first']);
    expect(first.code).toBe(0);
    const events = first.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; threadId: string; todos?: unknown });
    expect(events.every((e) => e.threadId === 'my-thread')).toBe(true);
    const types = new Set(events.map((e) => e.type));
    for (const t of ['text', 'tool_call', 'tool_result', 'todos', 'usage', 'done']) expect(types.has(t), t).toBe(true);
    expect(events.find((e) => e.type === 'todos')!.todos).toEqual([{ content: 'a', status: 'pending' }]);
    expect(events.at(-1)).toMatchObject({ type: 'done', text: 'first answer' });

    server.push({ text: 'second answer' });
    const second = await run(['--thread', 'my-thread', 'second']);
    expect(second.stdout).toBe('second answer\n');
    const history = server.requests.at(-1)!.messages.map((m) => `${m.role}:${textOf(m.content)}`);
    expect(history).toContain('user:first');
    expect(history).toContain('assistant:first answer');
    expect(history.at(-1)).toBe('user:second');
  });

  it('asks by default: without a terminal, writes are rejected with a message to the agent', async () => {
    server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/x.txt', content: 'x' } }] }, { text: 'could not write' });
    const r = await run(['write x']);
    expect(r.code).toBe(0);
    expect(existsSync(join(folder, 'x.txt'))).toBe(false);
    expect(textOf(toolMessages(server.requests[1]!)[0]!.content)).toMatch(/^Error: the person rejected .*non-interactive/);
  });

  it('asks on a terminal and runs the call once the person answers yes', async () => {
    server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/asked.txt', content: 'yes\n' } }] }, { text: 'written after asking' });
    const term = pty.spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, 'write it'], {
      cwd: repo,
      env: { ...process.env, OPENAI_API_KEY: '' } as Record<string, string>,
      cols: 120,
      rows: 40,
    });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((resolveExit) => term.onExit(({ exitCode }) => resolveExit(exitCode)));
    await waitFor(() => screen.includes('Approve?'));
    expect(screen).toContain('write_file needs approval');
    term.write('y\r');
    expect(await exited).toBe(0);
    expect(screen).toContain('written after asking');
    expect(readFileSync(join(folder, 'asked.txt'), 'utf8')).toBe('yes\n');
  });

  it('--approve deny refuses only what would ask', async () => {
    server.push(
      { toolCalls: [{ name: 'ls', args: {} }, { name: 'write_file', args: { file_path: '/x.txt', content: 'x' } }] },
      { text: 'ok' },
    );
    const r = await run(['--approve', 'deny', 'look and write']);
    expect(r.code).toBe(0);
    const results = toolMessages(server.requests[1]!).map((m) => textOf(m.content));
    expect(results[0]).toBe('/memories/ (directory)');
    expect(results[1]).toMatch(/^Error: the person rejected/);
  });

  it('continues a thread after the agent host was killed mid-tool, with a valid history', async () => {
    server.push({ toolCalls: [{ name: 'execute', args: { command: 'sleep 37.5' }, id: 'call_sleep' }] });
    const first = start(['--json', '--approve', 'auto', '--thread', 'killed', 'sleep please']);
    // Mid-tool: the command runs (the step was saved before it started), not merely announced.
    await waitFor(() => first.stdout().includes('"tool_call"') && sleeping('sleep 37.5'));
    // The run is the host's: killing the command that started it would leave it going.
    process.kill(hostPid(dataDir)!, 'SIGKILL');
    const ended = await first.done;
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(/^deepdesk run: the agent host stopped .*the run was interrupted/);

    server.push({ text: 'recovered' });
    const second = await run(['--thread', 'killed', 'what happened?']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('recovered\n');
    const req = server.requests.at(-1)!;
    assertToolPairing(req);
    expect(textOf(toolMessages(req)[0]!.content)).toMatch(/interrupted/);
    expect(req.messages.at(-1)).toMatchObject({ role: 'user', content: 'what happened?' });
  });

  it('exits 1 with a one-line reason on a provider error and 2 on bad usage', async () => {
    server.push(...Array.from({ length: 5 }, () => ({ error: { status: 401, body: { error: { message: 'bad key' } } } })));
    const failed = await run(['hi']);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    expect(failed.stderr).toMatch(/^deepdesk run: /);
    expect((await run(['--approve', 'maybe', 'hi'])).code).toBe(2);
    expect((await run([])).code).toBe(2);
    expect((await run(['--context-window', 'lots', 'hi'])).code).toBe(2);
  });
});

function sleeping(command: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', command], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("deepdesk run asks a subagent's calls too", () => {
  const subagentWrites = (): ScriptStep[] => {
    const step: ScriptStep = (req) => {
      const isSub = textOf(req.messages[0]!.content).includes('You are a subagent');
      const answered = req.messages.some((m) => m.role === 'tool');
      if (!isSub) return answered ? { text: 'parent done' } : { toolCalls: [{ name: 'task', args: { description: 'write /sub.txt', subagent_type: 'general-purpose' } }] };
      return answered ? { text: `sub: ${toolMessages(req).map((m) => textOf(m.content)).join(' | ')}` } : { toolCalls: [{ name: 'write_file', args: { file_path: '/sub.txt', content: 'sub\n' } }] };
    };
    return [step, step, step, step];
  };

  it('--approve deny refuses it; --approve auto runs it; the approval event names its task', async () => {
    server.push(...subagentWrites());
    const denied = await run(['--approve', 'deny', '--json', 'delegate']);
    expect(denied.code).toBe(0);
    expect(existsSync(join(folder, 'sub.txt'))).toBe(false);
    const approvals = denied.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; name?: string; parentToolCallId?: string; status?: string }).filter((e) => e.type === 'approval');
    expect(approvals.some((e) => e.name === 'write_file' && e.parentToolCallId !== undefined)).toBe(true);
    server.push(...subagentWrites());
    const allowed = await run(['--approve', 'auto', 'delegate']);
    expect(allowed.code).toBe(0);
    expect(readFileSync(join(folder, 'sub.txt'), 'utf8')).toBe('sub\n');
  });
});

describe("deepdesk run applies the person's rules from Settings", () => {
  it('a deny rule in settings.json refuses the call even with --approve auto; an allow rule runs without asking', async () => {
    writeFileSync(
      join(dataDir, 'settings.json'),
      JSON.stringify({
        rules: [
          { decision: 'deny', tools: ['write_file'], paths: ['/secret.txt'] },
          { decision: 'allow', tools: ['write_file'], paths: ['/ok.txt'] },
        ],
      }),
    );
    server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/secret.txt', content: 'no\n' } }, { name: 'write_file', args: { file_path: '/ok.txt', content: 'yes\n' } }] },
      { text: 'done' },
    );
    const r = await run(['--approve', 'deny', 'write both']);
    expect(r.code).toBe(0);
    expect(existsSync(join(folder, 'secret.txt'))).toBe(false);
    expect(readFileSync(join(folder, 'ok.txt'), 'utf8')).toBe('yes\n');
    expect(textOf(toolMessages(server.requests.at(-1)!)[0]!.content)).toMatch(/^Error: this write_file call is not allowed/);
  });
});
