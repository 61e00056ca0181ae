// `execute` through an editor's terminal/*: the SDK's agent side talking to a client app
// whose terminals are real processes (as an editor's are), in one process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agent, client, methods, type AgentConnection } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CANCELLED_NOTE, TIMEOUT_EXIT_CODE, timeoutNote } from '../../../core/process/pty-exec';
import { editorTerminalRunner, type CommandRunner } from './editor-terminal';

interface Term {
  child: ChildProcess;
  output: string;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
}

let folder: string;
let terminals: Map<string, Term>;
let released: string[];
let connection: AgentConnection;
let run: CommandRunner;

const alive = (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false;
  }
};

beforeEach(() => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-acp-term-')));
  terminals = new Map();
  released = [];
  let next = 0;
  const editor = client({ name: 'terminal-editor' })
    .onRequest(methods.client.terminal.create, ({ params }) => {
      const child = spawn(params.command, params.args ?? [], {
        cwd: params.cwd ?? undefined,
        env: { ...process.env, ...Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value])) },
        detached: true,
      });
      const term: Term = { child, output: '', exit: new Promise((done) => child.on('exit', (exitCode, signal) => done({ exitCode, signal }))) };
      child.stdout!.on('data', (d: Buffer) => (term.output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (term.output += d.toString()));
      const terminalId = `t${++next}`;
      terminals.set(terminalId, term);
      return { terminalId };
    })
    .onRequest(methods.client.terminal.waitForExit, async ({ params }) => terminals.get(params.terminalId)!.exit)
    .onRequest(methods.client.terminal.output, ({ params }) => ({ output: terminals.get(params.terminalId)!.output, truncated: false }))
    .onRequest(methods.client.terminal.kill, ({ params }) => {
      process.kill(-terminals.get(params.terminalId)!.child.pid!, 'SIGKILL');
      return {};
    })
    .onRequest(methods.client.terminal.release, ({ params }) => {
      released.push(params.terminalId);
      return {};
    });
  connection = agent({ name: 'deepdesk-test' }).connect(editor);
  run = editorTerminalRunner((params) => connection.client.createTerminal({ sessionId: 's', ...params }), folder);
});

afterEach(() => {
  connection.close();
  for (const t of terminals.values()) if (alive(t.child)) process.kill(-t.child.pid!, 'SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

describe('execute in the editor’s terminal', () => {
  it('runs in the folder with the non-interactive environment, and reports output and exit code as our pty does', async () => {
    const r = await run('pwd; echo "CI=$CI"; printf "\\033[31mred\\033[0m\\n"; exit 3');
    expect(r).toMatchObject({ exitCode: 3, truncated: false, sandboxed: false });
    expect(r.output).toBe(`${folder}\nCI=1\nred`);
    expect(released).toEqual(['t1']);
  });

  it('gives the command the tool call’s traceparent, and nothing that is not one', async () => {
    const traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    expect((await run('printf "%s" "$TRACEPARENT"', { traceparent })).output).toBe(traceparent);
    expect((await run('printf "[%s]" "$TRACEPARENT"', { traceparent: '00-x; touch pwned' })).output).toBe('[]');
  });

  it('kills the command on a timeout: exit code 124 and the timeout note', async () => {
    const r = await run('echo started; sleep 30', { timeoutS: 1 });
    expect(r).toMatchObject({ exitCode: TIMEOUT_EXIT_CODE, timedOut: true });
    expect(r.output).toBe(`started\n${timeoutNote(1)}`);
    await expect.poll(() => alive(terminals.get('t1')!.child)).toBe(false);
    expect(released).toEqual(['t1']);
  });

  it('kills the command when the run is cancelled', async () => {
    const controller = new AbortController();
    const result = run('echo waiting; sleep 30', { signal: controller.signal });
    await expect.poll(() => terminals.get('t1')?.output).toBe('waiting\n');
    controller.abort();
    const r = await result;
    expect(r.exitCode).toBeNull();
    expect(r.output).toBe(`waiting\n${CANCELLED_NOTE}`);
    await expect.poll(() => alive(terminals.get('t1')!.child)).toBe(false);
    expect(released).toEqual(['t1']);
  });
});
