// The window's terminals with real ptys: the person's shell per thread, a live view per
// agent command (typed into by the person), bounds, and nothing for threads that don't exist.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive, listProcesses } from '../../core/process/process-tree';
import { SHELL_TERMINAL_ID, TerminalService, type TerminalLimits } from './terminal-service';
import { WindowShellBackend } from './window-shell-backend';

let root: string;
let home: string;
let service: TerminalService | undefined;
const threads = new Set(['a', 'b', 'c']);

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-tsvc-root-')));
  home = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-tsvc-home-')));
  writeFileSync(join(home, '.bashrc'), "PS1='person$ '\n");
});

afterEach(async () => {
  await service?.dispose();
  service = undefined;
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function makeService(limits?: TerminalLimits, mirror?: { highWaterMark: number; lowWaterMark: number }): TerminalService {
  service = new TerminalService({ rootDir: root, isThread: (id) => threads.has(id), shell: { env: { HOME: home }, shell: '/bin/bash' }, ...(limits ? { limits } : {}), ...(mirror ? { mirror } : {}) });
  return service;
}

function backendFor(svc: TerminalService, threadId: string): WindowShellBackend {
  return new WindowShellBackend({ rootDir: root, threadId, terminals: svc, env: { HOME: home } });
}

/** Waits for a state; the bound is only against a hang (a loaded machine may take its time). */
async function waitFor(probe: () => boolean, what = 'condition', timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what}: not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const children = (): number[] => listProcesses().filter((p) => p.ppid === process.pid).map((p) => p.pid);

/** The `cat` processes run by these shells. */
function catsIn(shells: number[]): number[] {
  return listProcesses()
    .filter((p) => shells.includes(p.ppid))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/comm`, 'utf8').trim() === 'cat';
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}

function collect(svc: TerminalService): Record<string, string> {
  const seen: Record<string, string> = {};
  svc.onData((threadId, terminalId, data) => {
    const key = `${threadId}/${terminalId}`;
    seen[key] = (seen[key] ?? '') + data;
  });
  return seen;
}

describe('TerminalService: threads that do not exist', () => {
  it('refuses every call with a made-up thread id and starts no process', async () => {
    const svc = makeService();
    const before = children();
    const made = ['made-up', '../a', 'a\0', '__proto__', 'constructor', 'x'.repeat(500)];
    for (const threadId of made) {
      expect(() => svc.attach(threadId, SHELL_TERMINAL_ID)).toThrow(/not found/);
      expect(() => svc.input(threadId, SHELL_TERMINAL_ID, 'touch pwned\r')).toThrow(/not found/);
      expect(() => svc.resize(threadId, SHELL_TERMINAL_ID, 80, 24)).toThrow(/not found/);
      expect(() => svc.ack(threadId, SHELL_TERMINAL_ID, 10)).toThrow(/not found/);
      expect(() => svc.detach(threadId, SHELL_TERMINAL_ID)).toThrow(/not found/);
      expect(() => svc.list(threadId)).toThrow(/not found/);
      await expect(svc.closeTerminal(threadId, SHELL_TERMINAL_ID)).rejects.toThrow(/not found/);
    }
    expect(svc.shellPids()).toEqual([]);
    expect(children()).toEqual(before);
  });

  it('refuses a command view id that does not exist in the thread', () => {
    const svc = makeService();
    expect(() => svc.attach('a', 'cmd-99')).toThrow(/no terminal/);
    expect(() => svc.input('a', 'cmd-99', 'x')).toThrow(/no terminal/);
    expect(svc.shellPids()).toEqual([]);
  });
});

describe('TerminalService: the person\'s shell', () => {
  it('starts on attach, keeps threads apart, and ends with its thread', async () => {
    const svc = makeService();
    const seen = collect(svc);
    expect(svc.attach('a', SHELL_TERMINAL_ID)).toEqual({ buffer: '', at: 0 });
    svc.input('b', SHELL_TERMINAL_ID, 'echo in-b-$((2+2))\r');
    await waitFor(() => (seen['a/shell'] ?? '').includes('person$'), 'prompt of a');
    svc.input('a', SHELL_TERMINAL_ID, 'echo in-a-$((1+1))\r');
    await waitFor(() => (seen['a/shell'] ?? '').includes('in-a-2') && (seen['b/shell'] ?? '').includes('in-b-4'), 'both outputs');
    expect(seen['a/shell']).not.toContain('in-b-4');
    // The buffer again, and where it ends in the stream the window was sent: all of it so far.
    const again = svc.attach('a', SHELL_TERMINAL_ID);
    expect(again.buffer).toContain('in-a-2');
    expect(again.at).toBe(seen['a/shell']!.length);
    expect(svc.list('a')[0]).toEqual({ id: 'shell', kind: 'shell', running: true, sandboxed: false });
    const pids = svc.shellPids();
    expect(pids).toHaveLength(2);
    await svc.close('a');
    await svc.close('b');
    await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), 'shells gone');
  });

  it('keeps at most `shells` running: the least recently used one nobody shows is closed', async () => {
    const svc = makeService({ shells: 2 });
    svc.attach('a', SHELL_TERMINAL_ID);
    svc.input('b', SHELL_TERMINAL_ID, '\r');
    const [pidA, pidB] = svc.shellPids();
    svc.attach('c', SHELL_TERMINAL_ID);
    expect(svc.shellPids()).toHaveLength(2);
    await waitFor(() => !isProcessAlive(pidB!), 'b closed (not shown)');
    expect(isProcessAlive(pidA!)).toBe(true);
  });

  it('dispose ends every shell and what runs in it', async () => {
    const svc = makeService();
    const seen = collect(svc);
    svc.attach('a', SHELL_TERMINAL_ID);
    await waitFor(() => (seen['a/shell'] ?? '').includes('person$'), 'prompt');
    svc.input('a', SHELL_TERMINAL_ID, 'sleep 300 & echo started-$((3*3))\r');
    await waitFor(() => (seen['a/shell'] ?? '').includes('started-9'), 'background job');
    const sleepers = () => listProcesses().filter((p) => svc.shellPids().includes(p.ppid)).map((p) => p.pid);
    const spawned = sleepers();
    expect(spawned.length).toBeGreaterThan(0);
    const shells = svc.shellPids();
    await svc.dispose();
    service = undefined;
    await waitFor(() => [...shells, ...spawned].every((pid) => !isProcessAlive(pid)), 'all gone');
  });

  it('a closed shell is hung up as a terminal is: its EXIT trap runs and its history is saved', async () => {
    writeFileSync(join(home, '.bashrc'), "PS1='person$ '\nHISTFILE=\"$HOME/history\"\ntrap 'echo closed > \"$HOME/closed\"' EXIT\n");
    const svc = makeService();
    const seen = collect(svc);
    svc.attach('a', SHELL_TERMINAL_ID);
    await waitFor(() => (seen['a/shell'] ?? '').includes('person$'), 'prompt');
    svc.input('a', SHELL_TERMINAL_ID, 'echo typed-$((6*7))\r');
    await waitFor(() => (seen['a/shell'] ?? '').includes('typed-42'), 'command ran');
    await svc.close('a');
    expect(existsSync(join(home, 'closed'))).toBe(true);
    expect(readFileSync(join(home, 'history'), 'utf8')).toContain('echo typed-$((6*7))');
  });

  it('a shell closed while its rc file holds a lock (pyenv’s rehash) lets the lock’s EXIT trap release it', async () => {
    writeFileSync(join(home, 'hold-lock.sh'), ': > "$HOME/lock"\ntrap \'sleep 0.2; rm -f "$HOME/lock"\' EXIT\nsleep 300\n');
    writeFileSync(join(home, '.bashrc'), 'bash "$HOME/hold-lock.sh"\n');
    const svc = makeService();
    svc.attach('a', SHELL_TERMINAL_ID);
    await waitFor(() => existsSync(join(home, 'lock')), 'lock taken');
    await svc.close('a');
    expect(existsSync(join(home, 'lock'))).toBe(false);
  });
});

describe('TerminalService: agent commands in views of their own', () => {
  it('shows the command as typed, then its output live, and never internal helper text', async () => {
    const svc = makeService();
    const seen = collect(svc);
    const changes: string[] = [];
    svc.onChange((threadId) => changes.push(threadId));
    const result = await backendFor(svc, 'a').execute("printf 'one\\ntwo\\n'; echo done-$((6*7))");
    expect(result.exitCode).toBe(0);
    const [shell, view] = svc.list('a');
    expect(shell!.kind).toBe('shell');
    expect(view).toMatchObject({ kind: 'command', command: "printf 'one\\ntwo\\n'; echo done-$((6*7))", running: false, exitCode: 0, sandboxed: false });
    const text = svc.attach('a', view!.id).buffer;
    expect(text.startsWith(`\x1b[2m$ printf 'one\\ntwo\\n'; echo done-$((6*7))`)).toBe(true);
    expect(text).toContain('done-42');
    expect(text).toContain('[exit code 0]');
    expect(text).not.toContain('__deepdesk');
    expect(seen[`a/${view!.id}`]).toContain('done-42');
    expect(changes.filter((t) => t === 'a').length).toBeGreaterThanOrEqual(2);
    expect(svc.shellPids()).toEqual([]);
  });

  it('shows control and bidi characters of the command visibly', async () => {
    const svc = makeService();
    await backendFor(svc, 'a').execute('echo "a\u202eb" # \x1b[2J');
    const view = svc.list('a')[1]!;
    const text = svc.attach('a', view.id).buffer;
    expect(text).toContain('<U+202E>');
    expect(text).toContain('^[[2J');
    expect(text.split('\n')[0]).not.toContain('\x1b[2J');
  });

  it("an agent command's pty is as wide as the window's Terminal panel, and follows its view's resizes", async () => {
    const svc = makeService();
    const seen = collect(svc);
    // The window reports its panel's size (for the person's shell, even one not started).
    svc.resize('a', SHELL_TERMINAL_ID, 93, 17);
    expect(svc.shellPids()).toEqual([]);
    const first = await backendFor(svc, 'a').execute('stty size; tput cols');
    expect(first.output.split('\n').map((l) => l.trim())).toEqual(['17 93', '93']);
    // A running command's view is resized: the command sees it.
    const running = backendFor(svc, 'a').execute(`read -p 'go? ' x; stty size`, { timeoutS: 30 });
    await waitFor(() => Object.entries(seen).some(([k, v]) => k.startsWith('a/cmd-') && v.includes('go? ')), 'prompt shown');
    const view = svc.list('a').at(-1)!;
    svc.resize('a', view.id, 71, 19);
    svc.input('a', view.id, '\r');
    expect((await running).output).toContain('19 71');
    // Another thread's next command starts at the panel's latest size.
    expect((await backendFor(svc, 'b').execute('stty size')).output.trim()).toBe('19 71');
  });

  it('the person types into a running command: the answer reaches it', async () => {
    const svc = makeService();
    const seen = collect(svc);
    const running = backendFor(svc, 'a').execute(`read -p 'Name? ' n; echo "hi $n"`, { timeoutS: 30 });
    await waitFor(() => Object.entries(seen).some(([k, v]) => k.startsWith('a/cmd-') && v.includes('Name? ')), 'prompt shown');
    const view = svc.list('a')[1]!;
    expect(view).toMatchObject({ running: true });
    svc.input('a', view.id, 'Ada\r');
    const result = await running;
    expect(result.output).toContain('hi Ada');
    expect(svc.attach('a', view.id).buffer).toContain('hi Ada');
    // Typing into a finished command goes nowhere.
    svc.input('a', view.id, 'more\r');
  });

  it('a program left open in the person\'s shell does not block the agent\'s command', { timeout: 180_000 }, async () => {
    const svc = makeService();
    const seen = collect(svc);
    svc.attach('a', SHELL_TERMINAL_ID);
    await waitFor(() => (seen['a/shell'] ?? '').includes('person$'), 'prompt');
    svc.input('a', SHELL_TERMINAL_ID, 'cat\rhalf-typed');
    await waitFor(() => catsIn(svc.shellPids()).length > 0, 'cat running in the shell');
    const result = await backendFor(svc, 'a').execute('echo agent-$((5*5))', { timeoutS: 45 });
    // It ran to its end (not to its timeout) while the person's cat still ran: an order, not a time.
    expect(result).toMatchObject({ output: 'agent-25', exitCode: 0 });
    expect(result.timedOut).toBeFalsy();
    expect(catsIn(svc.shellPids()).length).toBeGreaterThan(0);
    expect(seen['a/shell']).not.toContain('agent-25');
  });

  it('keeps a bounded number of finished views; a running one is never dropped', async () => {
    const svc = makeService({ finishedPerThread: 2 });
    const backend = backendFor(svc, 'a');
    for (let i = 0; i < 4; i++) await backend.execute(`echo run-${i}`);
    const views = svc.list('a').filter((t) => t.kind === 'command');
    expect(views.map((v) => (v.kind === 'command' ? v.command : ''))).toEqual(['echo run-2', 'echo run-3']);
    await expect(svc.closeTerminal('a', views[0]!.id)).resolves.toBeUndefined();
    expect(svc.list('a').filter((t) => t.kind === 'command')).toHaveLength(1);
  });
});

describe('TerminalService: flow control', () => {
  it('a shown command view that the window does not acknowledge holds the command back; acks let it finish', async () => {
    const svc = makeService(undefined, { highWaterMark: 64 * 1024, lowWaterMark: 16 * 1024 });
    const total = 2_000_000;
    let received = 0;
    let viewId: string | undefined;
    svc.onChange((threadId) => {
      const view = svc.list(threadId).find((t) => t.kind === 'command');
      if (view && viewId === undefined) {
        viewId = view.id;
        svc.attach(threadId, view.id);
      }
    });
    svc.onData((_threadId, terminalId, data) => {
      if (terminalId === viewId) received += data.length;
    });
    let finished = false;
    const run = backendFor(svc, 'a')
      .execute(`head -c ${total} /dev/zero | tr '\\0' x`, { timeoutS: 60 })
      .finally(() => (finished = true));
    await waitFor(() => received > 64 * 1024, 'output up to the high-water mark');
    // Paused: the command cannot have written everything, so it cannot have finished.
    expect(finished).toBe(false);
    expect(received).toBeLessThan(total);
    let acked = 0;
    while (!finished) {
      svc.ack('a', viewId!, received - acked);
      acked = received;
      await new Promise((r) => setTimeout(r, 10));
    }
    const result = await run;
    expect(result.exitCode).toBe(0);
    expect(received).toBeGreaterThanOrEqual(total);
  });
});
