// A goal over the Agent Protocol (SPEC §21): `config.configurable.goal` and `verify` start one;
// the host runs the verify step, and the thread's state carries the goal with its evidence.

import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../../../core/models/testing/scripted-server';
import { protocolHarnessPerTest } from './testing/protocol-harness';

const h = protocolHarnessPerTest();

describe('a goal over the Agent Protocol', () => {
  it('configurable.goal with verify runs to achieved; the state values carry the goal and the host’s evidence', async () => {
    const turns: ScriptStep[] = [{ toolCalls: [{ name: 'execute', args: { command: 'echo ok > done.txt' } }] }, { text: 'Done.' }];
    for (let i = 0; i < 6; i++) {
      h.scripted.push((request: RecordedRequest): ScriptStep => {
        if (request.tools?.some((t) => t.function.name === 'record_verdict')) {
          const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ PASSED/.test(prompt) ? 'satisfied' : 'needs_revision', reason: 'evidence' }] } }] };
        }
        return turns.shift() ?? { text: 'Nothing more.' };
      });
    }
    const threadId = randomUUID();
    await h.client.runs.wait(threadId, 'deepdesk', { ifNotExists: 'create', config: { configurable: { mode: 'auto', goal: 'write done.txt', verify: ['test -f done.txt'] } } });
    const state = await h.client.threads.getState(threadId);
    const goal = (state.values as { goal?: { state: string; evidence: { steps: Array<{ command: string; exitCode: number }> } } }).goal;
    expect(goal?.state).toBe('achieved');
    expect(goal?.evidence.steps[0]).toMatchObject({ command: 'test -f done.txt', exitCode: 0 });
  });

  it.each([
    ['rewrites', "printf 'exit 0\\n' > tools/check.sh"],
    // The same size, its time put back: only the change time (which no process sets) still tells.
    ['quietly rewrites', "touch -r tools/check.sh t && printf 'exit 0;                            \\n' > tools/check.sh && touch -r t tools/check.sh && rm t"],
  ])('an agent that %s a git-ignored checker the verify step runs is named in the evidence the grader is sent (never git’s view alone)', async (_, rewrite) => {
    // The verify step runs a shim in an ignored tools folder; the agent makes it pass whatever the bug.
    writeFileSync(join(h.folder, '.gitignore'), 'tools/\n');
    mkdirSync(join(h.folder, 'tools'));
    writeFileSync(join(h.folder, 'tools', 'check.sh'), 'echo the bug is still there; exit 1\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: h.folder, stdio: 'ignore' });
    git('add', '-A');
    git('commit', '-qm', 'fixture');
    const turns: ScriptStep[] = [{ toolCalls: [{ name: 'execute', args: { command: rewrite } }] }, { text: 'Done.' }];
    const graderPrompts: string[] = [];
    for (let i = 0; i < 6; i++) {
      h.scripted.push((request: RecordedRequest): ScriptStep => {
        if (request.tools?.some((t) => t.function.name === 'record_verdict')) {
          const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
          graderPrompts.push(prompt);
          // A grader that reads the evidence: a changed checker is no fix.
          const checkerChanged = /tools.*changed inside an ignored folder/.test(prompt);
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: checkerChanged ? 'failed' : 'satisfied', reason: 'evidence' }] } }] };
        }
        return turns.shift() ?? { text: 'Nothing more.' };
      });
    }
    const threadId = randomUUID();
    await h.client.runs.wait(threadId, 'deepdesk', { ifNotExists: 'create', config: { configurable: { mode: 'auto', goal: 'fix the bug', verify: ['sh tools/check.sh'] } } });
    const state = await h.client.threads.getState(threadId);
    const goal = (state.values as { goal?: { state: string; evidence: { steps: Array<{ exitCode: number }>; filesTouched: string[] } } }).goal;
    // The shim now passes; the host's own view of what changed names it.
    expect(goal?.evidence.steps[0]).toMatchObject({ exitCode: 0 });
    expect(goal?.evidence.filesTouched).toContain('tools/ (changed inside an ignored folder)');
    expect(graderPrompts.at(-1)).toContain('tools/ (changed inside an ignored folder)');
    expect(goal?.state).not.toBe('achieved');
  });

  it('refuses verify without a goal (422)', async () => {
    await expect(h.client.runs.wait(randomUUID(), 'deepdesk', { ifNotExists: 'create', config: { configurable: { verify: ['true'] } } })).rejects.toThrow(/verify goes with/);
  });
});
