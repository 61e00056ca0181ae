// `deepdesk run` on a terminal (issue 97): a call's progress line is followed by what became of
// it when it did not run — denied by the reviewer with its reason, rejected by the person — so
// a refused command never reads as if it ran. The built bin on a real pty.

import * as pty from 'node-pty';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../core/models/testing/scripted-server';
import { bin, repo, useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-outcome');

const call = (command: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command } }] });
const DENY: ScriptStep = { toolCalls: [{ name: 'review_decision', args: { decision: 'deny', risk: 'high', authorization: 'none', category: 'destructive_action', rationale: 'Nobody asked for a marker.' } }] };

/** Runs `deepdesk run ARGS…` on a pty, answering each approval question with `answer`; the screen once it exits. */
async function onTerminal(args: string[], answer = 'n'): Promise<{ code: number; screen: string }> {
  const term = pty.spawn(process.execPath, [bin, 'run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_HOME: t.dataDir } as Record<string, string>,
    cols: 200,
    rows: 50,
  });
  let screen = '';
  let answered = 0;
  term.onData((d) => {
    screen += d;
    const asked = screen.split('Approve?').length - 1;
    for (; answered < asked; answered++) term.write(`${answer}\r`);
  });
  const code = await new Promise<number>((done) => term.onExit(({ exitCode }) => done(exitCode)));
  return { code, screen: screen.replace(/\r/g, '') };
}

describe('deepdesk run: a call that did not run says so under its line', () => {
  it('denied by the reviewer, with its reason; rejected by the person', async () => {
    t.server.push(call('touch marker'), DENY, { text: 'All set.' });
    const denied = await onTerminal(['--reviewer', 'thread', 'make a marker']);
    expect(denied.code).toBe(0);
    expect(existsSync(join(t.folder, 'marker'))).toBe(false);
    expect(denied.screen).toMatch(/• execute \{"command":"touch marker"\}\n {2}✗ not run: denied by the reviewer: Nobody asked for a marker\.\n/);

    t.server.push(call('touch other'), { text: 'Fine.' });
    const rejected = await onTerminal(['--approve', 'ask', 'make another']);
    expect(rejected.code).toBe(0);
    expect(existsSync(join(t.folder, 'other'))).toBe(false);
    expect(rejected.screen).toMatch(/ {2}✗ not run: rejected by you\n/);
  }, 180_000);

  it('the reviewer’s breaker tripping is told to the person on the terminal, in the second person', async () => {
    t.server.push(call('touch a'), DENY, call('touch b'), DENY, call('touch c'), DENY, { text: 'Stopped.' });
    const { code, screen } = await onTerminal(['--reviewer', 'thread', 'make three']);
    expect(code).toBe(0);
    expect(screen).toContain('deepdesk: Review is off for this thread: the reviewer denied 3 calls in a row. You answer its approvals until you save review on again in Settings › Approvals (or give --reviewer on a later run).\n');
  }, 180_000);
});
