// A person types into a running command through its own pty (ExecuteOptions.attach).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LiveCommand } from '../backends/protocol';
import { runInPty } from './pty-exec';
import { typeWhenShown } from './processes.test-support';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-pty-input-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), SHELL: '/bin/bash', TERM: 'xterm-256color', LANG: 'C.UTF-8' };

describe('typing into a running command', () => {
  it('answers a prompt: the line reaches the command and the result shows it', async () => {
    const typed = typeWhenShown('Name? ', 'Ada\r');
    const result = await runInPty(`read -p 'Name? ' n; echo "hi $n"`, { cwd: dir, env, timeoutS: 20, ...typed });
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('hi Ada');
    expect(typed.view.shown).toContain('hi Ada');
  });

  it('a line typed ahead that the command never reads does not end it early or get lost output', async () => {
    let live: LiveCommand | undefined;
    const result = await runInPty('sleep 0.3; seq 1 2000 | tail -n 1', { cwd: dir, env, timeoutS: 20, attach: (l) => (live = l) });
    expect(live).toBeDefined();
    expect(result.output).toContain('2000');
    expect(result.exitCode).toBe(0);
  });

  it('typed ahead while it runs, then finished: the typed line is not taken for our answer', async () => {
    let shown = '';
    const result = await runInPty(`sleep 0.5; printf 'end-%s\\n' ok`, {
      cwd: dir,
      env,
      timeoutS: 20,
      attach: (l) => l.write('stray line\r'),
      onData: (chunk) => (shown += chunk),
    });
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('end-ok');
  });

  it('without attach, stdin is empty: a prompt gets end of file at once', async () => {
    const result = await runInPty(`read -p 'Name? ' n; echo "status $?"`, { cwd: dir, env, timeoutS: 20 });
    expect(result.output).toContain('status 1');
  });

  it('Ctrl-C typed into the command interrupts it', async () => {
    let live: LiveCommand | undefined;
    let shown = '';
    let sent = false;
    const result = await runInPty(`echo started; sleep 30`, {
      cwd: dir,
      env,
      timeoutS: 20,
      attach: (l) => (live = l),
      onData: (chunk) => {
        shown += chunk;
        if (!sent && shown.includes('started')) {
          sent = true;
          live?.write('\x03');
        }
      },
    });
    expect(result.exitCode).toBe(130);
  });
});
