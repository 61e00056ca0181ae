import { spawn } from 'node:child_process';
import { createRequire, isBuiltin } from 'node:module';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { build } from 'rolldown';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive, sendSignal } from './process-tree';
import { runInPty, type RunInPtyOptions } from './pty-exec';
import { processesWith } from './processes.test-support';

const requireHere = createRequire(import.meta.url);
let dir: string;
const seen: number[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-pty-')));
});

afterEach(() => {
  for (const pid of seen.splice(0)) sendSignal(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const baseEnv: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/tmp',
  SHELL: '/bin/bash',
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
};

function run(command: string, extra: Partial<RunInPtyOptions> = {}) {
  return runInPty(command, { cwd: dir, env: baseEnv, timeoutS: 30, ...extra });
}

async function waitFor<T>(probe: () => T | undefined | false, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Pids the command wrote, one file per name. */
function pidsIn(...names: string[]): number[] {
  const pids = names.map((name) => Number(readFileSync(join(dir, name), 'utf8').trim()));
  seen.push(...pids);
  return pids;
}

function expectAllDead(pids: number[]): void {
  for (const pid of pids) expect(isProcessAlive(pid), `pid ${pid} still alive`).toBe(false);
}

describe('runInPty', () => {
  it('returns the output and exit code 0', async () => {
    expect(await run('echo hello')).toEqual({ output: 'hello', exitCode: 0, truncated: false });
  });

  it('returns a non-zero exit code', async () => {
    const result = await run('echo before; exit 3');
    expect(result.exitCode).toBe(3);
    expect(result.output).toBe('before');
  });

  it('reports death by a signal as 128 + signal', async () => {
    expect((await run('kill -KILL $$')).exitCode).toBe(137);
    expect((await run(`sh -c 'kill -TERM $$'`)).exitCode).toBe(143);
  });

  it('interleaves stdout and stderr as a terminal shows them', async () => {
    const result = await run('echo out1; echo err1 >&2; echo out2; echo err2 >&2');
    expect(result.output).toBe('out1\nerr1\nout2\nerr2');
  });

  it('strips ANSI escapes from the result but passes them raw to onData', async () => {
    const chunks: string[] = [];
    const result = await run(`printf '\\033[31mred\\033[0m plain \\033]0;title\\007héllo 日本\\n'`, {
      onData: (chunk) => chunks.push(chunk),
    });
    expect(result.output).toBe('red plain héllo 日本');
    const raw = chunks.join('');
    expect(raw).toContain('\x1b[31mred\x1b[0m');
    expect(raw).toContain('\r\n');
  });

  it('keeps the last rewrite of a progress line', async () => {
    const result = await run(`printf 'get 10%%\\rget 50%%\\rget 100%%\\n'; echo done`);
    expect(result.output).toBe('get 100%\ndone');
  });

  it('caps a long output keeping head and tail and says how much was cut', async () => {
    const result = await run('seq 1 200000');
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(100_000);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output.endsWith('199999\n200000')).toBe(true);
    const match = /\[\.\.\. (\d+) bytes of output truncated/.exec(result.output);
    expect(match).not.toBeNull();
    const full = Buffer.byteLength(Array.from({ length: 200000 }, (_, i) => String(i + 1)).join('\n') + '\n');
    // + 2: the head's last newline (taken out with the marker line) and the trimmed final newline.
    const kept = Buffer.byteLength(result.output.replace(/\n\[\.\.\.[^\n]*\]\n/, '')) + 2;
    expect(Number(match?.[1])).toBe(full - kept);
  });

  it('loses no output when the command exits right after a burst', async () => {
    const expected = Array.from({ length: 5000 }, (_, i) => String(i + 1)).join('\n');
    for (let i = 0; i < 5; i++) expect((await run('seq 1 5000')).output).toBe(expected);
  });

  it('honours a smaller maxOutputBytes', async () => {
    const result = await run('seq 1 5000', { maxOutputBytes: 2000 });
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(2000);
    expect(result.output.endsWith('5000')).toBe(true);
  });

  it('runs in the given folder', async () => {
    expect((await run('pwd')).output).toBe(dir);
  });

  it('gives stdin EOF so that commands reading it do not hang', async () => {
    // Had a read waited for input, the command would have ended at its timeout (124).
    const read = await run('read x; echo "got:$x"', { timeoutS: 10 });
    expect(read).toEqual({ output: 'got:', exitCode: 1 - 1, truncated: false });
    const cat = await run('cat; echo after', { timeoutS: 10 });
    expect(cat).toEqual({ output: 'after', exitCode: 0, truncated: false });
  });

  it('on timeout kills background children too, returns 124 and says it timed out', async () => {
    const result = await run(
      `echo $$ > root; sleep 30 & echo $! > bg1; sleep 30 & echo $! > bg2; echo started; wait`,
      { timeoutS: 1 },
    );
    expect(result.exitCode).toBe(124);
    expect(result.timedOut).toBe(true);
    expect(result.output).toBe('started\n[Command timed out after 1 second and was killed]');
    expectAllDead(pidsIn('root', 'bg1', 'bg2'));
  });

  it('on timeout kills processes that called setsid, even after their parent exited', async () => {
    const result = await run(
      `echo $$ > root
       setsid sh -c 'echo $$ > sid; exec sleep 30' &
       ( setsid sh -c 'echo $$ > orphan; exec sleep 30' >/dev/null 2>&1 & )
       while [ ! -s sid ] || [ ! -s orphan ]; do sleep 0.05; done
       sleep 30`,
      { timeoutS: 2 },
    );
    expect(result.exitCode).toBe(124);
    expect(result.output).toContain('timed out');
    expectAllDead(pidsIn('root', 'sid', 'orphan'));
  });

  it('on timeout kills processes that ignore SIGTERM', async () => {
    const result = await run(`trap '' TERM HUP; echo $$ > root; sleep 30 & echo $! > bg; wait`, { timeoutS: 1 });
    expect(result.exitCode).toBe(124);
    expectAllDead(pidsIn('root', 'bg'));
  });

  it('an abort resolves promptly, kills the tree and says it was cancelled', async () => {
    const controller = new AbortController();
    const pending = run(`echo $$ > root; sleep 30 & echo $! > bg; echo running; sleep 30`, {
      signal: controller.signal,
      timeoutS: 60,
    });
    await waitFor(() => {
      try {
        return readFileSync(join(dir, 'bg'), 'utf8').trim().length > 0;
      } catch {
        return false;
      }
    });
    controller.abort();
    // An abort that was not heard would end in 30 s with exit code 0, not null.
    const result = await pending;
    expect(result.exitCode).toBeNull();
    expect(result.output).toMatch(/^(running\n)?\[Command was cancelled and killed\]$/);
    expectAllDead(pidsIn('root', 'bg'));
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run('echo never > ran', { signal: controller.signal });
    expect(result.exitCode).toBeNull();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('resolves when the shell exits even if a background child holds the pty', async () => {
    // Had it waited for the child, the command would have ended at its timeout (124).
    const result = await run(`(trap '' HUP; exec sleep 30) & echo $! > bg; echo started`, { timeoutS: 20 });
    expect(result).toEqual({ output: 'started', exitCode: 0, truncated: false });
    const [bg] = pidsIn('bg');
    await waitFor(() => !isProcessAlive(bg as number));
  });

  it('keeps memory bounded on 50 MB of output and truncates', async () => {
    let chunks = 0;
    let peakHeap = 0;
    const before = process.memoryUsage().heapUsed;
    const result = await run('yes | head -c 50000000', {
      timeoutS: 120,
      onData: () => {
        if (++chunks % 200 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      },
    });
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.output).toMatch(/^y\ny\n/);
    expect(result.output).toMatch(/y\ny$/);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(100_000);
    // Holding the 50 MB (100 MB as a JS string) would show; chunks in flight do not.
    expect(peakHeap - before).toBeLessThan(60_000_000);
  }, 120_000);

  it('closes its pty: no file descriptors leak over many commands', async () => {
    const count = (): number => readdirSync('/proc/self/fd').length;
    await run('true');
    const before = count();
    for (let i = 0; i < 15; i++) await run(`echo ${i}`);
    await run('sleep 30 & echo bg', { timeoutS: 10 });
    await run('sleep 30', { timeoutS: 1 });
    expect(count()).toBeLessThanOrEqual(before + 1);
  });

  it.skipIf(!existsSync('/usr/bin/zsh'))('runs in zsh when that is the user shell', async () => {
    const env = { ...baseEnv, SHELL: '/usr/bin/zsh' };
    expect(await run('echo $ZSH_VERSION | cut -c1; exit 4', { env })).toMatchObject({ output: expect.stringMatching(/^\d$/), exitCode: 4 });
    expect((await run('read x; echo "got:$x"', { env, timeoutS: 10 })).output).toBe('got:');
    const result = await run('echo $$ > root; sleep 30 & echo $! > bg; wait', { env, timeoutS: 1 });
    expect(result.exitCode).toBe(124);
    expectAllDead(pidsIn('root', 'bg'));
  });

  it('survives an onData callback that throws', async () => {
    const result = await run('echo ok', {
      onData: () => {
        throw new Error('viewer broke');
      },
    });
    expect(result).toEqual({ output: 'ok', exitCode: 0, truncated: false });
  });
});

describe('no orphans when Deepdesk is SIGKILLed', () => {
  it("a command's processes end, a nohup'd and a setsid'd child too", async () => {
    const buildDir = mkdtempSync(join(tmpdir(), 'deepdesk-pty-parent-'));
    try {
      await build({
        input: join(import.meta.dirname, '__fixtures__', 'pty-parent.ts'),
        platform: 'node',
        external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
        logLevel: 'silent',
        output: { dir: buildDir, format: 'esm', entryFileNames: 'parent.mjs', paths: (id) => (isBuiltin(id) ? id : pathToFileURL(requireHere.resolve(id)).href) },
      });
      const tag = `7${process.pid}.${Date.now() % 100000}`;
      const command = `nohup sleep ${tag}1 >/dev/null 2>&1 & setsid sleep ${tag}2 & echo go; sleep ${tag}3`;
      const parent = spawn(process.execPath, [join(buildDir, 'parent.mjs'), dir, command], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: parent.stdout! }).once('line', () => resolve());
        parent.once('exit', (code) => reject(new Error(`the parent exited (${code})`)));
      });
      const sleeping = () => processesWith(tag);
      await waitFor(() => sleeping().length >= 3);
      parent.kill('SIGKILL');
      await expect.poll(sleeping, { timeout: 60_000 }).toEqual([]);
    } finally {
      rmSync(buildDir, { recursive: true, force: true });
    }
  });
});
