// A goal over the Agent Protocol (SPEC §21): `config.configurable.goal` and `verify` start one;
// the host runs the verify step, and the thread's state carries the goal with its evidence.

import { randomUUID } from 'node:crypto';
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

  it('refuses verify without a goal (422)', async () => {
    await expect(h.client.runs.wait(randomUUID(), 'deepdesk', { ifNotExists: 'create', config: { configurable: { verify: ['true'] } } })).rejects.toThrow(/verify goes with/);
  });
});
