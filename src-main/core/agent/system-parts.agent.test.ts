// What a feature adds to the request costs only where the feature is (SPEC §20): the sandbox's
// section and execute's `sandbox`/`reason` arguments only where commands run in a sandbox, the
// todo list only once there is one. Seen in the requests the scripted server received.
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../models/testing/scripted-server';
import { createHarness, textOf, type Harness } from './agent-harness.test-support';

let h: Harness | undefined;

afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const system = (request: RecordedRequest): string => textOf(request.messages[0]!.content);
const executeArgs = (request: RecordedRequest): string[] =>
  Object.keys((request.tools!.find((t) => t.function.name === 'execute')!.function.parameters as { properties: Record<string, unknown> }).properties);

describe('the request, part by part', () => {
  it('tells of the sandbox, and how to leave it, only where commands run in one', async () => {
    h = await createHarness({ sandboxAvailable: true, script: [{ text: 'ok' }] });
    await h.run('hi');
    const inSandbox = h.server.requests[0]!;
    expect(system(inSandbox)).toContain('## Sandbox\n');
    expect(system(inSandbox)).toContain('`[Sandbox blocked …]`');
    expect(system(inSandbox)).toContain('call execute with sandbox: false and a reason; the person is asked first');
    expect(system(inSandbox)).toMatch(/no network except domains the person allowed/);
    expect(executeArgs(inSandbox)).toEqual(['command', 'timeout', 'sandbox', 'reason']);
    await h.dispose();

    h = await createHarness({ sandboxAvailable: false, script: [{ text: 'ok' }] });
    await h.run('hi');
    const without = h.server.requests[0]!;
    expect(system(without)).not.toContain('Sandbox');
    expect(executeArgs(without)).toEqual(['command', 'timeout']);
  });

  it('shows the todo list once there is one', async () => {
    h = await createHarness({
      script: [{ toolCalls: [{ name: 'write_todos', args: { todos: [{ content: 'read code', status: 'in_progress' }] } }] }, { text: 'done' }],
    });
    await h.run('plan it');
    expect(system(h.server.requests[0]!)).not.toContain('todo list');
    expect(system(h.server.requests[1]!)).toContain('## Your todo list\n- [in_progress] read code');
  });
});
