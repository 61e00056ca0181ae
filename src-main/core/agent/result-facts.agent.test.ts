// The facts a tool result carries (exit code, rejection, eviction) from real runs: in the
// tool_result event and in the stored message, while the model's text stays as it was.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../models/testing/scripted-server';
import { createHarness, textOf, toolMessages, type Harness } from './agent-harness.test-support';
import type { AgentEvent, ThreadState } from './types';
import type { PermissionRule } from './permissions/rules';

let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const lastToolMessage = (req: RecordedRequest) => toolMessages(req).at(-1)!;
const resultEvent = (events: AgentEvent[], id: string) => events.find((e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result' && e.id === id)!;
const stored = (state: ThreadState, id: string) => state.messages.find((m) => m.role === 'tool' && m.toolCallId === id) as Extract<ThreadState['messages'][number], { role: 'tool' }>;
const askExecute: PermissionRule[] = [{ tools: ['execute'], decision: 'ask' }, { tools: ['*'], decision: 'allow' }];

describe('the facts of a tool result', () => {
  it('a command exiting 3 has exitCode 3; the model reads the same text as before, without the field', async () => {
    h = await createHarness({ script: [{ toolCalls: [{ id: 'c1', name: 'execute', args: { command: 'echo out; exit 3' } }] }, { text: 'ok' }] });
    await h.run('go');
    const event = resultEvent(h.events, 'c1');
    expect(event).toMatchObject({ exitCode: 3, output: 'out\n[Command failed with exit code 3]', isError: false });
    expect(event.rejected).toBeUndefined();
    expect(event.evictedTo).toBeUndefined();
    expect(stored(h.state, 'c1')).toMatchObject({ exitCode: 3 });
    const wire = lastToolMessage(h.server.requests[1]!);
    expect(textOf(wire.content)).toBe('out\n[Command failed with exit code 3]');
    expect(JSON.stringify(h.server.requests[1]!.messages)).not.toContain('exitCode');
  });

  it('a call the person rejected says so, with their words; one a rule denies says that', async () => {
    h = await createHarness({
      rules: [{ tools: ['execute'], commands: ['rm'], decision: 'deny', description: 'never remove' }, ...askExecute],
      decisions: [{ type: 'reject', message: 'not now' }],
      script: [{ toolCalls: [{ id: 'c1', name: 'execute', args: { command: 'touch marker' } }, { id: 'c2', name: 'execute', args: { command: 'rm -rf x' } }] }, { text: 'ok' }],
    });
    await h.run('go');
    expect(resultEvent(h.events, 'c1')).toMatchObject({ isError: true, rejected: { by: 'person', message: 'not now' }, output: 'Error: the person rejected this execute call; it was not run. They said: not now' });
    expect(resultEvent(h.events, 'c1').exitCode).toBeUndefined();
    expect(resultEvent(h.events, 'c2')).toMatchObject({ isError: true, rejected: { by: 'rule' } });
    expect(existsSync(join(h.ws.folder, 'marker'))).toBe(false);
    expect(stored(h.state, 'c1').rejected).toEqual({ by: 'person', message: 'not now' });
    expect(stored(h.state, 'c2').rejected).toEqual({ by: 'rule' });
    expect(textOf(toolMessages(h.server.requests[1]!)[0]!.content)).toBe('Error: the person rejected this execute call; it was not run. They said: not now');
  });

  it('an answer instead of a run is a rejection by the person that answered', async () => {
    h = await createHarness({ rules: askExecute, decisions: [{ type: 'respond', message: 'use make' }], script: [{ toolCalls: [{ id: 'c1', name: 'execute', args: { command: 'npm test' } }] }, { text: 'ok' }] });
    await h.run('go');
    expect(resultEvent(h.events, 'c1').rejected).toEqual({ by: 'person', answered: true, message: 'use make' });
  });

  it('a large result names the file it was saved to, which holds the whole text; its exit code stays', async () => {
    h = await createHarness({ evictChars: 2_000, script: [{ toolCalls: [{ id: 'big', name: 'execute', args: { command: 'seq 1 1000' } }] }, { text: 'ok' }] });
    await h.run('count');
    const event = resultEvent(h.events, 'big');
    expect(event).toMatchObject({ evictedTo: '/large_tool_results/big', exitCode: 0 });
    expect(event.output).toContain('so it was saved to /large_tool_results/big.');
    expect(stored(h.state, 'big')).toMatchObject({ evictedTo: '/large_tool_results/big', exitCode: 0 });
    const saved = await h.ws.mounts.backend.read('/large_tool_results/big', 0, 2000);
    expect(saved.error).toBeUndefined();
    expect(JSON.stringify(saved.fileData)).toContain('999\\n1000');
    expect(textOf(lastToolMessage(h.server.requests[1]!).content)).toBe(event.output);
  });
});
