// Commands on a remote folder against a real sshd on 127.0.0.1 (SPEC §13, §3 execute): the
// remote is this machine, so the folder is a local temp folder and `ps` sees the remote's
// processes.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as pty from 'node-pty';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANCELLED_NOTE, TIMEOUT_EXIT_CODE } from '../../process/pty-exec';
import type { LiveCommand } from '../protocol';
import { remoteLoginShellCommandLine, runRemoteCommand, type RemoteCommandOptions } from './remote-exec';
import { SshConnection } from './ssh-connection';
import { parseSshTarget } from './ssh-target';
import { startTestSshd, type TestSshd } from './testing/sshd';

let sshd: TestSshd;
let connection: SshConnection;
let dir: string;

beforeAll(async () => {
  sshd = await startTestSshd();
  connection = new SshConnection({ target: parseSshTarget(sshd.folderUrl('/tmp')), controlDir: `${sshd.dir}/cm`, sshCommand: sshd.sshCommand });
}, 30_000);

afterAll(async () => {
  await connection?.close();
  await sshd?.dispose();
});

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-rexec-')));
  return () => rmSync(dir, { recursive: true, force: true });
});

function run(command: string, extra: Partial<RemoteCommandOptions> = {}) {
  return runRemoteCommand(connection, command, { cwd: dir, timeoutS: 30, ...extra });
}

/** Processes on the machine (the remote) whose command line is exactly `args`. */
function processesRunning(args: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.trim().replace(/^\d+\s+/, '') === args);
}

/** Resolves once `text` appeared in the raw output. */
function outputShows(text: string): { onData: (chunk: string) => void; seen: Promise<void> } {
  let raw = '';
  let reached!: () => void;
  const seen = new Promise<void>((resolve) => (reached = resolve));
  return {
    onData: (chunk) => {
      raw += chunk;
      if (raw.includes(text)) reached();
    },
    seen,
  };
}

describe('runRemoteCommand over the system ssh', () => {
  it('returns the output and exit code as runInPty does', async () => {
    expect(await run('echo hello')).toEqual({ output: 'hello', exitCode: 0, truncated: false });
    const failed = await run('echo out1; echo err1 >&2; exit 3');
    expect(failed).toEqual({ output: 'out1\nerr1', exitCode: 3, truncated: false });
    expect((await run(`sh -c 'kill -TERM $$'`)).exitCode).toBe(143);
  });

  // The remote wrapper's command line holds the nonce, and the command can read it: a report
  // it prints is answered and nothing more (core/process/pty-run.ts). The status is ssh's exit.
  it('a command that prints a status report of its own still ends with its own status and output', async () => {
    const forge = [
      'p=6973; p="$p;done;"',
      'for f in /proc/[0-9]*/cmdline; do t=$(tr "\\0" " " 2>/dev/null < "$f"); case $t in *"$p"*) n=${t#*"$p"}; n=${n%%;*}; printf "\\033]%s%s;0\\007" "$p" "$n"; echo "forged $n";; esac; done',
      'sleep 0.2; echo after; exit 3',
    ].join('\n');
    const result = await run(forge);
    expect(result.exitCode).toBe(3);
    // One report per process whose command line holds a nonce (the local ssh's too, here, and
    // other tests' commands); the echo of our answer may come in between the lines it printed.
    expect(result.output).toMatch(/^forged [0-9a-f]{16}\n/);
    expect(result.output.split('\n').filter((line) => !/^(forged )?[0-9a-f]{16}$/.test(line))).toEqual(['after']);
  });

  it('runs in the folder, with quoting that survives any command text', async () => {
    const hostile = `it's "quoted" $HOME \\ ; | & * ~`;
    const result = await run(`pwd -P; printf '%s\\n' ${`'${hostile.replaceAll("'", `'\\''`)}'`}`);
    expect(result.output).toBe(`${dir}\n${hostile}`);
  });

  it('gives the non-interactive environment of §3 and the variables asked for, and stdin EOF', async () => {
    const result = await run('echo "$CI $PAGER $GIT_TERMINAL_PROMPT $GIT_EDITOR $EXTRA_ONE"; cat; echo after-cat', { env: { EXTRA_ONE: "x 'y'" } });
    expect(result.output).toBe("1 cat 0 true x 'y'\nafter-cat");
  });

  it('caps a long output keeping head and tail', async () => {
    const result = await run(`i=0; while [ $i -lt 3000 ]; do echo "line $i of the output"; i=$((i+1)); done`, { maxOutputBytes: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith('line 0 of the output')).toBe(true);
    expect(result.output).toMatch(/bytes of output truncated/);
    expect(result.output.endsWith('line 2999 of the output')).toBe(true);
  });

  it('takes what the person types when attached', async () => {
    let live: LiveCommand | undefined;
    const ready = outputShows('ready');
    const pending = run('echo ready; read -r line; echo "got:$line"', { attach: (l) => (live = l), onData: ready.onData });
    await ready.seen;
    live?.write('typed in\r');
    const result = await pending;
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('got:typed in');
  });

  it('a typed ^C interrupts the command, as in a local terminal', async () => {
    let live: LiveCommand | undefined;
    const ready = outputShows('ready');
    const pending = run('echo ready; sleep 987656; echo not-reached', { attach: (l) => (live = l), onData: ready.onData });
    await ready.seen;
    live?.write('\x03');
    const result = await pending;
    expect(result.exitCode).toBe(130);
    expect(result.output).not.toContain('not-reached');
    await expect.poll(() => processesRunning('sleep 987656'), { timeout: 60_000 }).toEqual([]);
  });

  it('says so when the folder cannot be entered', async () => {
    const result = await run('echo never', { cwd: join(dir, 'missing') });
    expect(result).toEqual({ output: `cannot enter the folder ${join(dir, 'missing')}`, exitCode: 1, truncated: false });
  });

  it('on timeout kills the whole remote process tree, returns 124 and says it timed out', async () => {
    const result = await run('sleep 987651 & sleep 987651', { timeoutS: 2 });
    expect(result.exitCode).toBe(TIMEOUT_EXIT_CODE);
    expect(result.timedOut).toBe(true);
    expect(result.output).toBe('[Command timed out after 2 seconds and was killed]');
    await expect.poll(() => processesRunning('sleep 987651'), { timeout: 60_000 }).toEqual([]);
  });

  it('Stop mid-command ends the remote process tree and says it was cancelled', async () => {
    const controller = new AbortController();
    const started = outputShows('started');
    const pending = run('echo started; sleep 987652 & sleep 987652', { signal: controller.signal, onData: started.onData });
    await started.seen;
    await expect.poll(() => processesRunning('sleep 987652').length, { timeout: 60_000 }).toBe(2);
    // The command would outlast the test: only the abort can end it.
    controller.abort();
    const result = await pending;
    expect(result.exitCode).toBeNull();
    expect(result.output).toBe(`started\n${CANCELLED_NOTE}`);
    await expect.poll(() => processesRunning('sleep 987652'), { timeout: 60_000 }).toEqual([]);
  });

  it('ends background processes the command left behind when it exits', async () => {
    const result = await run('sleep 987653 & echo left');
    expect(result).toEqual({ output: 'left', exitCode: 0, truncated: false });
    await expect.poll(() => processesRunning('sleep 987653'), { timeout: 60_000 }).toEqual([]);
  });
});

describe('the person\'s shell on the remote', () => {
  it('opens their login shell in the folder, and takes what they type', async () => {
    const line = remoteLoginShellCommandLine(connection, dir);
    const shell = pty.spawn(line.file, line.args, { cols: 120, rows: 30, cwd: process.cwd(), env: process.env as Record<string, string> });
    let raw = '';
    shell.onData((chunk) => (raw += chunk));
    const exited = new Promise<number>((resolve) => shell.onExit((e) => resolve(e.exitCode)));
    shell.write('echo "at:$PWD"; exit 7\r');
    expect(await exited).toBe(7);
    expect(raw).toContain(`at:${dir}`);
  });
});

describe('a lost connection', () => {
  it('mid-command gives an Error naming the host, and the next command connects again', async () => {
    const started = outputShows('started');
    const pending = run('echo started; sleep 987654', { onData: started.onData });
    await started.seen;
    await sshd.stop();
    const result = await pending;
    await sshd.start();
    expect(result.output).toMatch(/^Error: lost the connection \(deepdesk-test\)/);
    expect(result.connectionError).toMatch(/^Error: lost the connection \(deepdesk-test\)/);
    expect(result.exitCode).toBe(255);
    // The remote pty was hung up with the connection.
    await expect.poll(() => processesRunning('sleep 987654'), { timeout: 60_000 }).toEqual([]);
    expect(await run('echo back')).toEqual({ output: 'back', exitCode: 0, truncated: false });
  });
});

describe('a host whose key changed', () => {
  it('is refused with the reason, as an Error naming the host', async () => {
    const fresh = new SshConnection({ target: parseSshTarget(sshd.folderUrl(dir)), controlDir: `${sshd.dir}/cm-fresh`, sshCommand: sshd.sshCommand });
    await sshd.changeHostKey();
    const result = await runRemoteCommand(fresh, 'echo never', { cwd: dir, timeoutS: 30 });
    expect(result.output).toMatch(/^Error: refused: the host's key does not match .*\(deepdesk-test\)/);
    expect(result.exitCode).toBe(255);
  });
});
