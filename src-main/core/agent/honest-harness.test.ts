// What the model is told, and what the person is asked, is what happened (issue 10):
// edited approvals reach the model as the call that ran; nobody is asked about a call
// that cannot run; a run going round in circles stops; queued messages arrive between steps.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../models/testing/scripted-server';
import { assertToolPairing, createHarness, textOf, toolMessages, type Harness } from './agent-harness.test-support';
import type { Middleware } from './middleware';
import type { PermissionRule } from './permissions/rules';

let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const ASK_WRITES: PermissionRule[] = [
  { operations: ['read'], decision: 'allow' },
  { operations: ['write', 'edit', 'delete', 'execute'], decision: 'ask' },
];

/** The arguments of each tool call the request carries, by id. */
function wireCalls(request: RecordedRequest): Map<string, unknown> {
  const calls = new Map<string, unknown>();
  for (const m of request.messages) {
    for (const c of (m.tool_calls as Array<{ id: string; function: { arguments: string } }> | undefined) ?? []) calls.set(c.id, JSON.parse(c.function.arguments));
  }
  return calls;
}

describe('edited approvals', () => {
  it('sends the model the call that ran, and says in its result what the person changed', async () => {
    h = await createHarness({
      rules: ASK_WRITES,
      script: [
        { toolCalls: [{ id: 'read-1', name: 'read_file', args: { file_path: '/app.ts' } }] },
        { toolCalls: [{ id: 'edit-1', name: 'edit_file', args: { file_path: '/app.ts', old_string: 'log(', new_string: 'logger(' } }] },
        { text: 'Renamed.' },
      ],
      decisions: [{ type: 'edit', args: { file_path: '/app.ts', old_string: 'log(', new_string: 'appLogger(' } }],
    });
    writeFileSync(join(h.ws.folder, 'app.ts'), "log('x');\n");
    const result = await h.run('rename log');
    expect(result.reason).toBe('completed');
    expect(readFileSync(join(h.ws.folder, 'app.ts'), 'utf8')).toBe("appLogger('x');\n");

    const third = h.server.requests[2]!;
    assertToolPairing(third);
    expect(wireCalls(third).get('edit-1')).toEqual({ file_path: '/app.ts', old_string: 'log(', new_string: 'appLogger(' });
    const editResult = textOf(toolMessages(third).find((m) => m.tool_call_id === 'edit-1')?.content);
    expect(editResult).toMatch(/^Note: the person edited this call before it ran: new_string was "logger\(", it ran with "appLogger\("/);
    expect(editResult).toContain("Successfully replaced 1 instance(s) of the string in '/app.ts'");
    // The stored history keeps what the model proposed, for the card's "edited" mark.
    const stored = h.state.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).find((c) => c.id === 'edit-1')!;
    expect(stored.args).toEqual({ file_path: '/app.ts', old_string: 'log(', new_string: 'appLogger(' });
    expect(stored.originalArgs).toEqual({ file_path: '/app.ts', old_string: 'log(', new_string: 'logger(' });
    expect(h.events.find((e) => e.type === 'approval' && e.status === 'edited')).toMatchObject({ args: { new_string: 'appLogger(' } });
  });

  it('keeps a failure of the edited call a failure', async () => {
    h = await createHarness({
      rules: ASK_WRITES,
      script: [{ toolCalls: [{ id: 'x', name: 'execute', args: { command: 'true' } }] }, { text: 'ok' }],
      decisions: [{ type: 'edit', args: { command: 'exit 3', timeout: -1 } }],
    });
    await h.run('go');
    const sent = toolMessages(h.server.requests[1]!)[0]!;
    expect(textOf(sent.content)).toMatch(/^Note: the person edited this call[^\n]*\nError: timeout must be a positive number/);
    expect(h.events.find((e) => e.type === 'tool_result')).toMatchObject({ isError: true });
  });

  it('treats an "edit" that changes nothing as an approval', async () => {
    h = await createHarness({
      rules: ASK_WRITES,
      script: [{ toolCalls: [{ id: 'w', name: 'write_file', args: { file_path: '/n.txt', content: 'a' } }] }, { text: 'ok' }],
      decisions: [{ type: 'edit', args: { content: 'a', file_path: '/n.txt' } }],
    });
    await h.run('go');
    expect(textOf(toolMessages(h.server.requests[1]!)[0]!.content)).toBe('Updated file /n.txt');
    expect(h.state.messages.some((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.originalArgs !== undefined))).toBe(false);
  });
});

describe('asking only for what can run', () => {
  it('refuses a write to an unread existing file without asking', async () => {
    h = await createHarness({
      rules: ASK_WRITES,
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/exists.txt', content: 'new' } }] }, { text: 'ok' }],
    });
    writeFileSync(join(h.ws.folder, 'exists.txt'), 'old');
    await h.run('overwrite');
    expect(h.approvals).toEqual([]);
    expect(h.events.some((e) => e.type === 'approval')).toBe(false);
    expect(textOf(toolMessages(h.server.requests[1]!)[0]!.content)).toMatch(/^Error: \/exists\.txt exists but has not been read/);
    expect(readFileSync(join(h.ws.folder, 'exists.txt'), 'utf8')).toBe('old');
  });

  it('refuses invalid arguments, bad paths and edits that cannot apply without asking', async () => {
    h = await createHarness({
      rules: ASK_WRITES,
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/a.txt' } }] },
        {
          toolCalls: [
            { name: 'edit_file', args: { file_path: '/a.txt', old_string: 'absent', new_string: 'x' } },
            { name: 'write_file', args: { file_path: '/../escape.txt', content: 'x' } },
            { name: 'write_file', args: { file_path: 42 } },
            { name: 'execute', args: { command: 'true', timeout: 99_999 } },
            { name: 'edit_file', args: { file_path: '/missing.txt', old_string: 'a', new_string: 'b' } },
          ],
        },
        { text: 'ok' },
      ],
    });
    writeFileSync(join(h.ws.folder, 'a.txt'), 'present\n');
    await h.run('go');
    expect(h.approvals).toEqual([]);
    const results = toolMessages(h.server.requests[2]!).slice(1).map((m) => textOf(m.content));
    expect(results).toHaveLength(5);
    for (const r of results) expect(r).toMatch(/^Error: /);
    expect(results[0]).toMatch(/String not found|not found/i);
    expect(results[2]).toMatch(/invalid arguments for write_file/);
  });

  it('asks about a call that can run, and checks again after the approval', async () => {
    h = await createHarness({
      rules: ASK_WRITES,
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/a.txt' } }] },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'mine' } }] },
        { text: 'ok' },
      ],
      // While the person decides, someone else changes the file.
      decide: async () => {
        writeFileSync(join(h!.ws.folder, 'a.txt'), 'changed meanwhile, longer');
        return { type: 'approve' };
      },
    });
    writeFileSync(join(h.ws.folder, 'a.txt'), 'first');
    await h.run('go');
    expect(h.approvals).toHaveLength(1);
    expect(textOf(toolMessages(h.server.requests[2]!).at(-1)!.content)).toMatch(/^Error: \/a\.txt has changed since you last read it/);
    expect(readFileSync(join(h.ws.folder, 'a.txt'), 'utf8')).toBe('changed meanwhile, longer');
  });

  it('lets a middleware refuse a call before the question (the hook a read-only mode uses)', async () => {
    const readOnly: Middleware = {
      name: 'read-only',
      precheck: (_ctx, { call }) => (call.name === 'write_file' ? 'plan mode is read-only; ask the user to switch modes to make changes' : undefined),
    };
    h = await createHarness({
      rules: ASK_WRITES,
      extraMiddleware: [readOnly],
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/new.txt', content: 'x' } }] }, { text: 'ok' }],
    });
    await h.run('go');
    expect(h.approvals).toEqual([]);
    expect(textOf(toolMessages(h.server.requests[1]!)[0]!.content)).toBe('Error: plan mode is read-only; ask the user to switch modes to make changes');
  });
});

describe('a run that goes round in circles', () => {
  const same = { toolCalls: [{ name: 'read_file', args: { file_path: '/a.txt' } }] };

  it('stops after the same call with the same result three times in a row, saying why', async () => {
    h = await createHarness({ script: [same, same, same, same, { text: 'never' }] });
    writeFileSync(join(h.ws.folder, 'a.txt'), 'same\n');
    const result = await h.run('loop');
    expect(result.reason).toBe('error');
    expect(h.server.requests).toHaveLength(3);
    const error = h.events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ message: expect.stringMatching(/read_file .*3 times in a row with the same arguments and got the same result/) });
  });

  it('is configurable, and a changed result is progress', async () => {
    h = await createHarness({ maxRepeatedCalls: 5, script: [same, same, same, same, { text: 'done' }] });
    writeFileSync(join(h.ws.folder, 'a.txt'), 'same\n');
    expect((await h.run('loop')).reason).toBe('completed');
    await h.dispose();

    let n = 0;
    h = await createHarness({
      script: [same, same, () => (writeFileSync(join(h!.ws.folder, 'a.txt'), `v${++n}\n`), same), same, { text: 'done' }],
    });
    writeFileSync(join(h.ws.folder, 'a.txt'), 'same\n');
    expect((await h.run('loop')).reason).toBe('completed');
  });
});

describe('messages queued during a run', () => {
  it('arrive when the current step ends: after the tool results, before the next model call', async () => {
    const queue: Array<{ id: string; text: string }> = [];
    let taken = 0;
    h = await createHarness({
      script: [
        () => {
          // The person sends while the model is working on the first step.
          queue.push({ id: 'q1', text: 'also check b' });
          return { toolCalls: [{ name: 'ls', args: { path: '/' } }] };
        },
        { text: 'first answer' },
        { text: 'about b' },
      ],
      takeQueued: () => {
        taken++;
        return queue.splice(0);
      },
    });
    const result = await h.run('look');
    expect(result).toMatchObject({ reason: 'completed', text: 'first answer' });
    const second = h.server.requests[1]!;
    assertToolPairing(second);
    expect(second.messages.slice(-2).map((m) => m.role)).toEqual(['tool', 'user']);
    expect(textOf(second.messages.at(-1)!.content)).toBe('also check b');
    expect(h.events.find((e) => e.type === 'user_message')).toMatchObject({ text: 'also check b', queuedId: 'q1' });
    expect(taken).toBeGreaterThanOrEqual(2);
    expect(h.server.requests).toHaveLength(2);
    expect(textOf(h.server.requests[0]!.messages.at(-1)!.content)).toBe('look');
  });

  it('messages queued before the first model call go with the input', async () => {
    const queue = [{ id: 'early', text: 'and another thing' }];
    h = await createHarness({ script: [{ text: 'both' }], takeQueued: () => queue.splice(0) });
    await h.run('first thing');
    expect(h.server.requests[0]!.messages.slice(-2).map((m) => textOf(m.content))).toEqual(['first thing', 'and another thing']);
  });

  it('a message queued during the final answer starts the next turn of the same run', async () => {
    const queue: Array<{ id: string; text: string }> = [];
    h = await createHarness({
      script: [
        () => {
          queue.push({ id: 'q', text: 'one more thing' });
          return { text: 'first' };
        },
        { text: 'second' },
      ],
      takeQueued: () => queue.splice(0),
    });
    const result = await h.run('hi');
    expect(result).toMatchObject({ reason: 'completed', text: 'second' });
    expect(h.state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(h.events.filter((e) => e.type === 'done')).toHaveLength(1);
  });
});
