// For tests of the agent host through the built CLI: its process as the host's log names it,
// a terminal (a real pty) running a command, and polling for what the host's clients show.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { bin, repo } from './cli-harness.test-support';

/** The pid of the data folder's running host (from the last `host up` line of its log), or undefined. */
export function hostPid(dataDir: string): number | undefined {
  let log: string;
  try {
    log = readFileSync(join(dataDir, 'host', 'host.log'), 'utf8');
  } catch {
    return undefined;
  }
  const ups = [...log.matchAll(/host up: pid (\d+)/g)];
  const pid = ups.length > 0 ? Number(ups.at(-1)![1]) : undefined;
  return pid !== undefined && alive(pid) ? pid : undefined;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Terminal {
  screen(): string;
  write(text: string): void;
  kill(signal?: string): void;
  exited: Promise<number>;
}

/** `deepdesk ARGS…` on a real terminal (approvals are asked only there). */
export function onTerminal(args: string[], env: NodeJS.ProcessEnv = {}, cols = 160): Terminal {
  const term = pty.spawn(process.execPath, [bin, ...args], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '', ...env } as Record<string, string>, cols, rows: 50 });
  let screen = '';
  term.onData((d) => (screen += d));
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  return { screen: () => screen, write: (text) => term.write(text), kill: (signal) => term.kill(signal), exited };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
