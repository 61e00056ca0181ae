import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../core/backends/process-tree';
import { TerminalService } from './terminal-service';

let root: string;
let home: string;
let service: TerminalService | undefined;

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

function makeService(): TerminalService {
  service = new TerminalService({ rootDir: root, terminal: { env: { HOME: home } } });
  return service;
}

async function waitFor(probe: () => boolean, what = 'condition', timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what}: not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('TerminalService', () => {
  it('keeps one terminal per thread', () => {
    const svc = makeService();
    const a = svc.terminalFor('a');
    expect(svc.terminalFor('a')).toBe(a);
    expect(svc.terminalFor('b')).not.toBe(a);
    expect(a.rootDir).toBe(root);
  });

  it('starts the shell on attach, routes input and output by thread, and snapshots', async () => {
    const svc = makeService();
    const seen: Record<string, string> = {};
    svc.onData((threadId, data) => {
      seen[threadId] = (seen[threadId] ?? '') + data;
    });
    expect(svc.attach('a')).toBe('');
    await waitFor(() => (seen.a ?? '').includes('person$'), 'prompt of a');
    svc.input('a', 'echo in-a-$((1+1))\r');
    svc.input('b', 'echo in-b-$((2+2))\r');
    await waitFor(() => (seen.a ?? '').includes('in-a-2') && (seen.b ?? '').includes('in-b-4'), 'both outputs');
    expect(seen.a).not.toContain('in-b-4');
    expect(seen.b).not.toContain('in-a-2');
    expect(svc.attach('a')).toContain('in-a-2');
    expect((await svc.terminalFor('b').run('pwd')).output).toBe(root);
  });

  it('resizes, applies acknowledgements per thread and subscribes new terminals', async () => {
    const svc = makeService();
    let acked = 0;
    const off = svc.onData(
      (threadId, data) => {
        acked += data.length;
        svc.ack(threadId, data.length);
      },
      { acks: true },
    );
    svc.attach('a');
    svc.resize('a', 90, 20);
    expect((await svc.terminalFor('a').run('stty size </dev/tty')).output).toBe('20 90');
    await waitFor(() => acked > 0, 'data delivered');
    expect(svc.terminalFor('a').unacknowledged).toBe(0);
    svc.ack('a', 5);
    expect(svc.terminalFor('a').unacknowledged).toBe(0);
    off();
    svc.ack('unknown', 10);
  });

  it('holds a terminal back only while a window that acknowledges shows it', async () => {
    const svc = makeService();
    svc.onData(() => undefined, { acks: true });
    const terminal = svc.terminalFor('a');
    const big = 'yes 0123456789abcdef | head -c 2000000';
    expect((await terminal.run(big)).exitCode).toBe(0);
    expect(terminal.paused).toBe(false);
    svc.attach('a');
    const running = terminal.run(big);
    await waitFor(() => terminal.paused, 'paused while shown');
    svc.detach('a');
    expect(terminal.paused).toBe(false);
    expect((await running).exitCode).toBe(0);
  });

  it('closes a thread terminal and kills its shell', async () => {
    const svc = makeService();
    const terminal = svc.terminalFor('a');
    await terminal.run('true');
    const pid = terminal.pid as number;
    await svc.close('a');
    expect(isProcessAlive(pid)).toBe(false);
    expect(svc.terminalFor('a')).not.toBe(terminal);
    await svc.dispose();
    expect(() => svc.terminalFor('c')).toThrow();
  });
});
