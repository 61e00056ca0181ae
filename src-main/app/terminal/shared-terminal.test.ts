import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../../core/backends/local-shell';
import { isProcessAlive, listProcesses, sendSignal } from '../../core/backends/process-tree';
import { SharedTerminal, type SharedTerminalOptions } from './shared-terminal';
import { TERMINAL_ID_VAR } from './shell-integration';

let root: string;
let home: string;
const terminals: SharedTerminal[] = [];
const strays: number[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-st-root-')));
  home = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-st-home-')));
  // A startup file like many people have: aliases and a PROMPT_COMMAND ending in ';'.
  writeFileSync(
    join(home, '.bashrc'),
    ["alias ls='ls -F'", "alias rm='rm -i'", "PROMPT_COMMAND='__user_hook=1;'", "PS1='person$ '", ''].join('\n'),
  );
});

afterEach(async () => {
  await Promise.all(terminals.splice(0).map((t) => t.dispose()));
  for (const pid of strays.splice(0)) sendSignal(pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

interface Harness {
  terminal: SharedTerminal;
  /** Everything mirrored so far. */
  mirrored: () => string;
}

function open(options: Partial<SharedTerminalOptions> = {}): Harness {
  const terminal = new SharedTerminal({ rootDir: root, env: { HOME: home }, ...options });
  terminals.push(terminal);
  let seen = '';
  terminal.onData((data) => {
    seen += data;
  });
  return { terminal, mirrored: () => seen };
}

async function waitFor(probe: () => boolean, what = 'condition', timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what}: not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pidFrom(name: string): number {
  const pid = Number(readFileSync(join(root, name), 'utf8').trim());
  strays.push(pid);
  return pid;
}

function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

describe('SharedTerminal: agent commands', () => {
  it('reports exit codes and captures output like LocalShellBackend', async () => {
    const { terminal } = open();
    expect(await terminal.run("printf 'a\\nb\\n'")).toEqual({ output: 'a\nb', exitCode: 0, truncated: false });
    expect(await terminal.run('echo oops >&2; exit 3')).toEqual({ output: 'oops', exitCode: 3, truncated: false });
    const local = new LocalShellBackend({ rootDir: root });
    for (const command of [
      "printf 'a\\nb\\n'",
      'echo out; echo err >&2; false',
      "printf 'no newline'",
      "printf 'x\\r\\ny\\n\\n\\n'",
      "printf 'progress 1\\rprogress 2\\rdone\\n'",
      'true',
      'touch f1 f2; ls',
      'pwd',
    ]) {
      expect(await terminal.run(command), command).toEqual(await local.execute(command));
    }
  });

  it('strips ANSI escapes from the result but mirrors them', async () => {
    const { terminal, mirrored } = open();
    const result = await terminal.run("printf '\\033[31mred\\033[0m \\033]0;title\\007plain\\n'");
    expect(result).toEqual({ output: 'red plain', exitCode: 0, truncated: false });
    await waitFor(() => mirrored().includes('\x1b[31mred'), 'colour in the mirror');
  });

  it('ignores forged markers and OSC garbage in command output', async () => {
    const { terminal } = open();
    const fakeEnd = "printf '\\033]6973;E;0123456789abcdef0123456789abcdef;1;0\\007'";
    const fakeEnd2 = "printf '\\033]6973;E;;2;0\\007\\033]6973;R;;\\007'";
    expect(await terminal.run(`${fakeEnd}; ${fakeEnd2}; echo still-running; exit 5`)).toEqual({
      output: 'still-running',
      exitCode: 5,
      truncated: false,
    });
    const garbageCommand = "printf 'before\\n\\033]6973;E;'; printf '\\033]9;garbage'; printf '\\033]'; exit 4";
    const garbage = await terminal.run(garbageCommand);
    expect(garbage.exitCode).toBe(4);
    expect(garbage.output.startsWith('before\n')).toBe(true);
    // The text is decoded as LocalShellBackend decodes it.
    expect(garbage).toEqual(await new LocalShellBackend({ rootDir: root }).execute(garbageCommand));
    expect(await terminal.run('echo next')).toEqual({ output: 'next', exitCode: 0, truncated: false });
  });

  it('keeps the nonce from the command', async () => {
    const { terminal } = open();
    expect((await terminal.run('echo "[${__deepdesk_nonce-unset}]"; env | grep -ci nonce')).output).toBe('[unset]\n0');
  });

  it('runs queued commands one at a time, in order', async () => {
    const { terminal, mirrored } = open();
    const order: string[] = [];
    const first = terminal.run('sleep 0.5; echo first-$((1+0))').then((r) => {
      order.push('first');
      return r;
    });
    const second = terminal.run('echo second-$((1+1))').then((r) => {
      order.push('second');
      return r;
    });
    expect((await first).output).toBe('first-1');
    expect((await second).output).toBe('second-2');
    expect(order).toEqual(['first', 'second']);
    await waitFor(() => mirrored().includes('second-2'), 'mirrored output');
    expect(mirrored().indexOf('first-1')).toBeLessThan(mirrored().indexOf('second-2'));
  });

  it('starts every command in the project folder', async () => {
    mkdirSync(join(root, 'sub'));
    const { terminal } = open();
    expect((await terminal.run('cd /tmp && pwd')).output).toBe('/tmp');
    expect((await terminal.run('cd sub; pwd')).output).toBe(join(root, 'sub'));
    expect((await terminal.run('pwd')).output).toBe(root);
  });

  it('gives commands the non-interactive environment without aliases, and keeps them out of the shell', async () => {
    const { terminal, mirrored } = open();
    const result = await terminal.run('echo "$CI|$PAGER|$GIT_TERMINAL_PROMPT"; alias | wc -l; echo x > f; rm f && echo removed');
    expect(result.output).toBe('1|cat|0\n0\nremoved');
    // The person's shell keeps the app's own environment: none of the agent-only settings.
    terminal.write('echo "person:${GIT_TERMINAL_PROMPT-unset}"\r');
    const expected = `person:${process.env.GIT_TERMINAL_PROMPT ?? 'unset'}`;
    await waitFor(() => mirrored().includes(expected), 'person sees their own environment');
  });

  it('hands over long commands through a private file', async () => {
    const { terminal } = open();
    const long = 'x'.repeat(20_000);
    expect(await terminal.run(`printf '%s' '${long}' | wc -c; printf '%s\\n' "it's \\"quoted\\" \\$HOME"`)).toEqual({
      output: `20000\nit's "quoted" $HOME`,
      exitCode: 0,
      truncated: false,
    });
  });

  it('caps big output keeping head and tail', async () => {
    const { terminal } = open({ maxOutputBytes: 2000 });
    const result = await terminal.run('seq 1 5000');
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output.endsWith('4999\n5000')).toBe(true);
    expect(result.output).toContain('bytes of output truncated');
  });

  it('kills a timed-out command tree while the shell survives', async () => {
    const { terminal } = open();
    await terminal.run('true');
    const shellPid = terminal.pid;
    expect(shellPid).toBeDefined();
    const result = await terminal.run('sleep 30 & echo $! > bg; echo $BASHPID > sub; sleep 30', { timeoutS: 1 });
    expect(result.exitCode).toBe(124);
    expect(result.timedOut).toBe(true);
    expect(result.output).toBe('[Command timed out after 1 second and was killed]');
    for (const name of ['bg', 'sub']) expect(isProcessAlive(pidFrom(name)), name).toBe(false);
    expect(isProcessAlive(shellPid as number)).toBe(true);
    expect(terminal.pid).toBe(shellPid);
    expect(await terminal.run('echo next')).toEqual({ output: 'next', exitCode: 0, truncated: false });
  });

  it('kills a timed-out busy loop of builtins', async () => {
    const { terminal } = open();
    const result = await terminal.run('echo $BASHPID > sub; while :; do :; done', { timeoutS: 1 });
    expect(result.exitCode).toBe(124);
    expect(isProcessAlive(pidFrom('sub'))).toBe(false);
    expect((await terminal.run('echo alive')).output).toBe('alive');
  });

  it('stops a command when its signal aborts', async () => {
    const { terminal } = open();
    const controller = new AbortController();
    let raw = '';
    const running = terminal.run('echo started; echo $BASHPID > sub; sleep 30', {
      signal: controller.signal,
      onData: (chunk) => {
        raw += chunk;
      },
    });
    await waitFor(() => raw.includes('started') && existsSync(join(root, 'sub')), 'command started');
    controller.abort();
    const result = await running;
    expect(result.exitCode).toBeNull();
    expect(result.output).toBe('started\n[Command was cancelled and killed]');
    expect(isProcessAlive(pidFrom('sub'))).toBe(false);
    expect((await terminal.run('echo next')).output).toBe('next');
  });

  it('answers a command aborted before it ran without running it', async () => {
    const { terminal } = open();
    const controller = new AbortController();
    const first = terminal.run('sleep 0.5');
    const second = terminal.run('touch should-not-exist', { signal: controller.signal });
    controller.abort();
    expect(await second).toEqual({ output: '[Command was cancelled before it ran]', exitCode: null, truncated: false });
    expect((await first).exitCode).toBe(0);
    expect(existsSync(join(root, 'should-not-exist'))).toBe(false);
  });
});

describe('SharedTerminal: the person', () => {
  it('mirrors what the person types and runs', async () => {
    const { terminal, mirrored } = open();
    await terminal.start();
    terminal.write('echo typed-by-$((40+2))\r');
    await waitFor(() => mirrored().includes('typed-by-42'), 'person output mirrored');
    expect(await terminal.run('echo agent')).toEqual({ output: 'agent', exitCode: 0, truncated: false });
  });

  it('clears a half-typed line before an agent command', async () => {
    const { terminal, mirrored } = open();
    await terminal.start();
    terminal.write('echo half-typed');
    await waitFor(() => mirrored().includes('half-typed'), 'echo of typing');
    expect(await terminal.run('echo agent')).toEqual({ output: 'agent', exitCode: 0, truncated: false });
    expect(mirrored()).not.toContain('half-typed__deepdesk');
  });

  it('clears a half-written continuation line before an agent command', async () => {
    const { terminal } = open();
    await terminal.start();
    terminal.write('for i in 1 2; do\r');
    expect(await terminal.run('echo agent')).toEqual({ output: 'agent', exitCode: 0, truncated: false });
  });

  it('waits while the person runs a program, then runs the agent command', async () => {
    const { terminal, mirrored } = open();
    await terminal.start();
    terminal.write('sleep 1; echo person-$((1+1))\r');
    await waitFor(() => mirrored().includes('person-$'), 'person command echoed');
    expect(await terminal.run('echo agent-$((2+1))')).toEqual({ output: 'agent-3', exitCode: 0, truncated: false });
    await waitFor(() => mirrored().includes('agent-3'), 'agent output mirrored');
    const text = mirrored();
    expect(text.indexOf('person-2')).toBeGreaterThan(-1);
    expect(text.indexOf('person-2')).toBeLessThan(text.indexOf('agent-3'));
  });

  it("lets the person's typeahead run before the next agent command", async () => {
    const { terminal, mirrored } = open();
    let raw = '';
    const first = terminal.run('echo go; sleep 1; echo first-done', { onData: (chunk) => (raw += chunk) });
    await waitFor(() => raw.includes('go'), 'first command started');
    terminal.write('echo typeahead-$((7*6))\r');
    const second = terminal.run('echo second-$((1+1))');
    expect((await first).output).toBe('go\nfirst-done');
    expect((await second).output).toBe('second-2');
    await waitFor(() => mirrored().includes('second-2'), 'mirrored');
    const text = mirrored();
    expect(text).toContain('typeahead-42');
    expect(text.indexOf('typeahead-42')).toBeLessThan(text.indexOf('second-2'));
  });

  it('does not type an agent command into a program the person runs', async () => {
    const { terminal, mirrored } = open();
    await terminal.start();
    // A program reading the terminal, like an editor; it echoes what it reads.
    terminal.write('while read -r l; do echo "prog:$l"; [ "$l" = quit ] && break; done\r');
    await waitFor(() => mirrored().includes('while read'), 'program started');
    const agent = terminal.run('echo agent-$((3+4))');
    terminal.write('hello\r');
    await waitFor(() => mirrored().includes('prog:hello'), 'program read the person');
    terminal.write('quit\r');
    expect((await agent).output).toBe('agent-7');
    expect(mirrored()).not.toContain('prog: __deepdesk');
  });

  it('times out a command that waited for a busy terminal without running it', async () => {
    const { terminal, mirrored } = open();
    await terminal.start();
    terminal.write('sleep 3\r');
    await waitFor(() => mirrored().includes('sleep 3'), 'person command echoed');
    const result = await terminal.run('touch should-not-exist', { timeoutS: 1 });
    expect(result.exitCode).toBe(124);
    expect(result.output).toContain('waiting for the terminal');
    expect(await terminal.run('echo later')).toEqual({ output: 'later', exitCode: 0, truncated: false });
    expect(existsSync(join(root, 'should-not-exist'))).toBe(false);
  });

  it("reports the person's Ctrl-C to the agent's command as its exit status", async () => {
    const { terminal } = open();
    let raw = '';
    const running = terminal.run('echo $BASHPID > sub; echo go; sleep 30', { onData: (chunk) => (raw += chunk) });
    await waitFor(() => raw.includes('go'), 'command started');
    // A SIGINT that lands while bash forks `sleep` is swallowed (bash's own race): wait for sleep.
    const sub = pidFrom('sub');
    await waitFor(() => listProcesses().some((p) => p.ppid === sub && commandName(p.pid) === 'sleep'), 'sleep running');
    terminal.write('\x03');
    expect((await running).exitCode).toBe(130);
    expect((await terminal.run('echo fine')).output).toBe('fine');
  });

  it('restarts the shell after the person typed exit', async () => {
    const { terminal, mirrored } = open();
    await terminal.start();
    const first = terminal.pid as number;
    terminal.write('exit\r');
    await waitFor(() => terminal.pid === undefined, 'shell exited');
    expect(isProcessAlive(first)).toBe(false);
    expect(await terminal.run('echo back')).toEqual({ output: 'back', exitCode: 0, truncated: false });
    expect(terminal.pid).not.toBe(first);
    await waitFor(() => mirrored().includes('[shell restarted]'), 'restart notice');
    terminal.write('exit\r');
    await waitFor(() => terminal.pid === undefined, 'shell exited again');
    terminal.write('echo typed-$((3*3))\r');
    await waitFor(() => mirrored().includes('typed-9'), 'typing restarts the shell');
  });

  it('waits for a slow startup file instead of typing into it or cutting it short', async () => {
    writeFileSync(join(home, '.bashrc'), 'sleep 8\n');
    const { terminal } = open({ startupTimeoutMs: 300 });
    expect(await terminal.run('echo ok')).toEqual({ output: 'ok', exitCode: 0, truncated: false });
  });

  it('copes with strict shell options and vi mode in the startup file', async () => {
    writeFileSync(join(home, '.bashrc'), "set -u; set -o vi; PS1='strict$ '\n");
    const { terminal } = open();
    expect(await terminal.run('echo ok; exit 3')).toEqual({ output: 'ok', exitCode: 3, truncated: false });
    terminal.write('echo half');
    expect((await terminal.run('echo again')).output).toBe('again');
  });

  it('runs the command even when Ctrl-C cannot clear the line', async () => {
    // Readline can miss a Ctrl-C that lands while it handles typing, leaving the text in
    // front of the agent's line; a shell that ignores SIGINT does so every time.
    writeFileSync(join(home, '.bashrc'), "trap '' INT; PS1='noint$ '\n");
    const { terminal, mirrored } = open();
    await terminal.start();
    terminal.write('echo half');
    await waitFor(() => mirrored().includes('echo half'), 'echo of typing');
    expect(await terminal.run('echo again')).toEqual({ output: 'again', exitCode: 0, truncated: false });
    expect((await terminal.run('echo next')).output).toBe('next');
  });

  it('answers a command without a timeout that cannot start in time as not run', async () => {
    const { terminal, mirrored } = open({ startTimeoutMs: 1000 });
    await terminal.start();
    terminal.write('sleep 3; echo person-$((2*5))\r');
    await waitFor(() => mirrored().includes('person-$'), 'person command echoed');
    const result = await terminal.run('touch should-not-exist');
    expect(result).toEqual({
      output: '[Command timed out after 1 second waiting for the terminal, which was busy; it was not run]',
      exitCode: 124,
      truncated: false,
      timedOut: true,
    });
    await waitFor(() => mirrored().includes('person-10'), 'person command done');
    expect(await terminal.run('echo later')).toEqual({ output: 'later', exitCode: 0, truncated: false });
    expect(existsSync(join(root, 'should-not-exist'))).toBe(false);
  });

  it('recovers when the person replaces the prompt and its hooks', async () => {
    const { terminal, mirrored } = open();
    await terminal.start();
    terminal.write("PROMPT_COMMAND=; PS1='bare$ '\r");
    await waitFor(() => mirrored().includes('bare$ '), 'new prompt');
    expect(await terminal.run('echo first')).toEqual({ output: 'first', exitCode: 0, truncated: false });
    const started = Date.now();
    expect(await terminal.run('echo second')).toEqual({ output: 'second', exitCode: 0, truncated: false });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('resizes the pty', async () => {
    const { terminal } = open({ cols: 80, rows: 24 });
    expect((await terminal.run('stty size </dev/tty')).output).toBe('24 80');
    terminal.resize(132, 40);
    expect((await terminal.run('stty size </dev/tty')).output).toBe('40 132');
  });
});

describe('SharedTerminal: the mirror', () => {
  it('shows the person the real command, outside the captured output', async () => {
    const { terminal, mirrored } = open();
    expect((await terminal.run('echo "shown-$((40+2))"')).output).toBe('shown-42');
    await waitFor(() => mirrored().includes('$ echo "shown-$((40+2))"'), 'the command shown in the terminal');
  });

  it('never shows markers or the nonce', async () => {
    const { terminal, mirrored } = open();
    await terminal.run('echo one');
    await terminal.run('exit 2');
    terminal.write('echo person\r');
    await terminal.run("printf 'two\\n'");
    // Traces of the shell's own hooks must not show it either.
    terminal.write('set -x\r');
    await terminal.run('echo traced');
    terminal.write('true\r');
    expect((await terminal.run('echo three')).output).toBe('three');
    await waitFor(() => mirrored().includes('two'), 'mirrored');
    expect(mirrored()).not.toContain('\x1b]6973');
    expect(mirrored()).not.toMatch(/[0-9a-f]{32}/);
  });

  it('echoes the command line once, even behind a slow prompt', async () => {
    writeFileSync(join(home, '.bashrc'), "PS1='$(sleep 0.3)slow$ '\n");
    const { terminal, mirrored } = open();
    await terminal.run('echo one');
    await terminal.run('echo two');
    await waitFor(() => mirrored().includes('two\r\n'), 'mirrored');
    expect(mirrored().split('__deepdesk_run 2 ').length - 1).toBe(1);
    expect(mirrored()).not.toContain('${__deepdesk_r}');
  });

  it('gives a window that attaches later the scrollback', async () => {
    const { terminal } = open();
    await terminal.run('echo early-$((5*5))');
    const snapshot = terminal.snapshot();
    expect(snapshot).toContain('early-25');
    let later = '';
    terminal.onData((data) => {
      later += data;
    });
    await terminal.run('echo late-$((6*6))');
    await waitFor(() => later.includes('late-36'), 'new data');
    expect(later).not.toContain('early-25');
    expect(terminal.snapshot()).toContain('late-36');
  });

  it('pauses the pty for a window that does not keep up, and completes once it acknowledges', async () => {
    const { terminal } = open();
    let acking = false;
    let delivered = 0;
    terminal.onData(
      (data) => {
        delivered += data.length;
        if (acking) terminal.ack(data.length);
      },
      { acks: true },
    );
    let settled = false;
    const running = terminal.run('yes 0123456789abcdef | head -c 5000000').then((r) => {
      settled = true;
      return r;
    });
    await waitFor(() => terminal.paused, 'pty paused');
    expect(terminal.unacknowledged).toBeGreaterThan(512 * 1024);
    const seen = delivered;
    // Held: nothing more arrives while the window is behind.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(terminal.paused).toBe(true);
    expect(settled).toBe(false);
    expect(delivered - seen).toBeLessThan(256 * 1024);
    acking = true;
    terminal.ack(terminal.unacknowledged);
    const result = await running;
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(delivered).toBeGreaterThan(5_000_000);
  });

  it('never pauses without an acknowledging window', async () => {
    const { terminal } = open();
    const result = await terminal.run('yes 0123456789abcdef | head -c 3000000 | wc -c');
    expect(result.output).toBe('3000000');
    const big = await terminal.run('yes 0123456789abcdef | head -c 3000000');
    expect(big.exitCode).toBe(0);
    expect(terminal.paused).toBe(false);
  });
});

describe('SharedTerminal: lifecycle', () => {
  it('leaves no processes behind when disposed', async () => {
    const { terminal } = open();
    await terminal.run('(sleep 300 >/dev/null 2>&1 &); setsid sleep 301 >/dev/null 2>&1 & echo done');
    terminal.write('sleep 302 &\r');
    const marker = `${TERMINAL_ID_VAR}=${terminal.terminalId}`;
    const ours = (): number[] => listProcesses(marker).filter((p) => p.marked).map((p) => p.pid);
    await waitFor(() => ours().length >= 4, 'background processes started');
    const pids = ours();
    strays.push(...pids);
    const handoff = readdirSync(tmpdir()).filter((name) => name.startsWith('deepdesk-term-'));
    await terminal.dispose();
    expect(ours()).toEqual([]);
    for (const pid of pids) expect(isProcessAlive(pid), `pid ${pid}`).toBe(false);
    expect(await terminal.run('echo x')).toEqual({ output: '[The terminal was closed]', exitCode: null, truncated: false });
    const left = readdirSync(tmpdir()).filter((name) => handoff.includes(name));
    expect(left.length).toBeLessThan(handoff.length);
  });

  it('answers pending commands when disposed', async () => {
    const { terminal } = open();
    let raw = '';
    const running = terminal.run('echo go; sleep 30', { onData: (chunk) => (raw += chunk) });
    const queued = terminal.run('echo never');
    await waitFor(() => raw.includes('go'), 'command started');
    await terminal.dispose();
    expect((await running).exitCode).toBeNull();
    expect(await queued).toEqual({ output: '[The terminal was closed]', exitCode: null, truncated: false });
  });
});

describe('SharedTerminal with sh', () => {
  it('runs commands, reports exit codes and kills timed-out trees', async () => {
    const { terminal, mirrored } = open({ shell: '/bin/sh' });
    expect(await terminal.run("printf 'a\\nb\\n'")).toEqual({ output: 'a\nb', exitCode: 0, truncated: false });
    expect(await terminal.run('echo oops >&2; exit 3')).toEqual({ output: 'oops', exitCode: 3, truncated: false });
    expect((await terminal.run('cd /tmp; pwd')).output).toBe('/tmp');
    expect((await terminal.run('pwd')).output).toBe(root);
    const result = await terminal.run('sleep 30 & echo $! > bg; sleep 30', { timeoutS: 1 });
    expect(result.exitCode).toBe(124);
    expect(isProcessAlive(pidFrom('bg'))).toBe(false);
    expect((await terminal.run('echo next')).output).toBe('next');
    terminal.write('echo person-$((2*4))\r');
    await waitFor(() => mirrored().includes('person-8'), 'person typing');
    expect((await terminal.run('echo after')).output).toBe('after');
    expect(mirrored()).not.toContain('\x1b]6973');
  });
});
