import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isShellBackend } from '../../core/backends/protocol';
import { SharedTerminal } from './shared-terminal';
import { TerminalShellBackend } from './terminal-shell-backend';

let root: string;
let home: string;
let terminal: SharedTerminal;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-tsb-')));
  // A home of its own: the machine's ~/.bashrc is not part of what is tested.
  home = mkdtempSync(join(tmpdir(), 'deepdesk-tsb-home-'));
  terminal = new SharedTerminal({ rootDir: root, env: { HOME: home } });
});

afterEach(async () => {
  await terminal.dispose();
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe('TerminalShellBackend', () => {
  it('is a shell backend over the project folder', async () => {
    const backend = new TerminalShellBackend({ rootDir: root, terminal });
    expect(isShellBackend(backend)).toBe(true);
    expect(backend.id).toMatch(/^terminal-[0-9a-f]{8}$/);
    await backend.write('/notes/a.txt', 'hello\n');
    expect(await backend.execute('cat notes/a.txt; exit 2')).toEqual({ output: 'hello', exitCode: 2, truncated: false });
    await backend.execute('printf "made by shell\\n" > notes/b.txt');
    expect((await backend.read('/notes/b.txt')).fileData?.content).toBe('made by shell');
  });

  it('runs in the shared terminal: the window sees it and onData gets the raw chunks', async () => {
    const backend = new TerminalShellBackend({ rootDir: root, terminal });
    let mirrored = '';
    terminal.onData((data) => {
      mirrored += data;
    });
    let raw = '';
    const result = await backend.execute("printf '\\033[32mgreen\\033[0m\\n'", { onData: (chunk) => (raw += chunk) });
    expect(result.output).toBe('green');
    expect(raw).toContain('\x1b[32mgreen');
    expect(raw).not.toContain('__deepdesk_run');
    const deadline = Date.now() + 5000;
    while (!mirrored.includes('green') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(mirrored).toContain('\x1b[32mgreen');
  });

  it('uses its default timeout and honours abort', async () => {
    const backend = new TerminalShellBackend({ rootDir: root, terminal, defaultTimeoutS: 1 });
    const timedOut = await backend.execute('sleep 30');
    expect(timedOut.exitCode).toBe(124);
    expect(timedOut.timedOut).toBe(true);
    const controller = new AbortController();
    controller.abort();
    expect((await backend.execute('echo never', { signal: controller.signal })).exitCode).toBeNull();
  });
});
