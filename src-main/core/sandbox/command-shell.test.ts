// A command behaves as typed in the user's shell, sandboxed or not: its `$0`, its exit
// status (a syntax error's, a signal's), its environment, stdin at end of file, its whole
// output up to its last byte, Ctrl-C handled its own way, and Stop ending all of it. The
// status is reported by a POSIX shell around the command (process/status-report.ts): in a
// sandbox, the launch's own shell outside bwrap, so each case runs both ways.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInPty, type RunInPtyOptions } from '../process/pty-exec';
import { processesWith, typeWhenShown } from '../process/processes.test-support';
import { createSandbox, detectSandbox } from './index';
import type { Sandbox } from './types';

const available = await detectSandbox();
let root: string;
let project: string;
let sandbox: Sandbox | undefined;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-command-shell-')));
  project = join(root, 'project');
  mkdirSync(project);
  if (available.available) sandbox = (await createSandbox({ projectDir: project, dataDir: join(root, 'data') })) ?? undefined;
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), SHELL: '/bin/bash', TERM: 'xterm-256color', LANG: 'C.UTF-8', SHLVL: '3', DEEPDESK_TEST_VAR: 'a b\tc' };

const ways = [
  { way: 'unsandboxed', boxed: false },
  { way: 'sandboxed', boxed: true },
];

async function waitFor(probe: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(ways)('a command as typed in the user shell ($way)', ({ boxed }) => {
  const skip = boxed && !available.available;
  const run = (command: string, extra: Partial<RunInPtyOptions> = {}) => runInPty(command, { cwd: project, env, timeoutS: 30, ...(boxed && sandbox ? { sandbox } : {}), ...extra });

  it.skipIf(skip)('sees its shell as $0, no arguments, and the environment it was given', async () => {
    const result = await run('printf "%s|%s|%s|%s|" "$0" "$#" "$DEEPDESK_TEST_VAR" "${LC_ALL-unset}"; echo "$SHLVL"');
    // As in bash started by bash (the user's shell running the command in a shell of its
    // own, as it always has; `; :` keeps the outer one from exec'ing it).
    const level = execFileSync('/bin/bash', ['-c', '/bin/bash -c \'echo "$SHLVL"\'; :'], { env: { PATH: env.PATH, SHLVL: '3' }, encoding: 'utf8' }).trim();
    expect(level).toBe('5');
    expect(result.output).toBe(`bash|0|a b\tc|unset|${level}`);
    expect(result.exitCode).toBe(0);
  });

  it.skipIf(skip)('ends with its own status: exit 7, a syntax error, a signal (with no job report)', async () => {
    expect((await run('exit 7')).exitCode).toBe(7);
    const syntax = await run('if then fi');
    expect(syntax.exitCode).toBe(2);
    expect(syntax.output).toContain('syntax error');
    const killed = await run('echo before; kill -9 $$');
    expect(killed.exitCode).toBe(137);
    expect(killed.output).toBe('before');
    const trapped = await run("trap 'echo bye' EXIT; exit 4");
    expect(trapped).toMatchObject({ exitCode: 4, output: 'bye' });
  });

  // The status report's nonce is in the reporting shell's command line, which an unsandboxed
  // command can read (in a sandbox that shell is outside the command's process namespace). A
  // report the command prints is answered and nothing more: its status is still the one it
  // exits with, its output goes on, and Stop still ends it (pty-run.ts).
  const forge = [
    'p=6973; p="$p;done;"',
    'for f in /proc/[0-9]*/cmdline; do t=$(tr "\\0" " " 2>/dev/null < "$f"); case $t in *"$p"*) n=${t#*"$p"}; n=${n%%;*}; printf "\\033]%s%s;0\\007" "$p" "$n"; echo "forged $n" >&2;; esac; done',
    'echo tried',
  ].join('\n');

  it.skipIf(skip)('cannot forge its own status report', async () => {
    const result = await run(`${forge}\nsleep 0.2; echo after; exit 3`);
    expect(result.exitCode).toBe(3);
    // Unsandboxed the nonce was found and a report printed: what followed it is kept.
    if (!boxed) expect(result.output).toMatch(/^forged [0-9a-f]{16}\n/);
    // One report per process whose command line holds a nonce (other tests' commands too); the
    // echo of our answer may come in between the lines the command went on printing.
    expect(result.output.split('\n').filter((line) => !/^(forged )?[0-9a-f]{16}$/.test(line))).toEqual(['tried', 'after']);
  });

  it.skipIf(skip)('Stop still ends a command that printed a report of its own', async () => {
    const mark = `32.${process.pid}${boxed ? 1 : 0}7`;
    const controller = new AbortController();
    const running = run(`${forge}\nsleep ${mark}; echo never`, { signal: controller.signal });
    await waitFor(() => processesWith(`sleep\0${mark}`).length === 1);
    controller.abort();
    const result = await running;
    expect(result.exitCode).toBeNull();
    expect(result.output).toContain('tried');
    expect(result.output).not.toContain('never');
    await waitFor(() => processesWith(`sleep\0${mark}`).length === 0);
  });

  it.skipIf(skip)('reads end of file on stdin at once', async () => {
    const result = await run('read -r line; echo "read=$?"; cat; echo done');
    expect(result.output).toBe('read=1\ndone');
  });

  it.skipIf(skip)('keeps its whole output when it exits right after writing it', async () => {
    const result = await run('seq 1 40000; printf END >&2; exit 3', { maxOutputBytes: 1_000_000 });
    expect(result.exitCode).toBe(3);
    expect(result.truncated).toBe(false);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output.endsWith('40000\nEND')).toBe(true);
    expect(result.output.split('\n')).toHaveLength(40001);
  });

  it.skipIf(skip)('with a live view attached, a line typed into it reaches it (its stdin is the pty)', async () => {
    const result = await run(`read -r -p 'Name? ' n; echo "hi $n"`, typeWhenShown('Name? ', 'Ada\r'));
    expect(result).toMatchObject({ exitCode: 0, output: 'Name? Ada\nhi Ada' });
  });

  it.skipIf(skip)('Ctrl-C typed into it: its own handler decides, its status and output are kept', async () => {
    const result = await run("trap 'echo caught; exit 5' INT; echo started; sleep 30 & wait", typeWhenShown('started', '\x03'));
    // In the sandbox the command has a session of its own (bwrap --new-session): the pty's
    // Ctrl-C ends the launch, and with it the command, as before.
    if (boxed) expect(result.exitCode).toBe(130);
    else expect(result).toMatchObject({ exitCode: 5, output: 'started\n^Ccaught' });
  });

  it.skipIf(skip)('Stop ends the whole tree, background children too', async () => {
    const mark = `31.${process.pid}${boxed ? 1 : 0}7`;
    const controller = new AbortController();
    const running = run(`sleep ${mark} & sleep ${mark}; echo never`, { signal: controller.signal });
    await waitFor(() => processesWith(`sleep\0${mark}`).length === 2);
    controller.abort();
    const result = await running;
    expect(result.exitCode).toBeNull();
    expect(result.output).not.toContain('never');
    await waitFor(() => processesWith(`sleep\0${mark}`).length === 0);
  });
});
