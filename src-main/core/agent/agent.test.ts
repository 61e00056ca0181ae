import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makePng } from '../media/testing/fixtures';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../models/testing/scripted-server';
import { assertToolPairing, createHarness, textOf, toolMessages, type Harness } from './agent-harness.test-support';

let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const lastToolText = (req: RecordedRequest) => textOf(toolMessages(req).at(-1)?.content);

describe('the loop', () => {
  it('streams a text answer and finishes', async () => {
    h = await createHarness({ script: [{ text: 'Hello there, friend.' }] });
    const result = await h.run('hi');
    expect(result).toEqual({ text: 'Hello there, friend.', reason: 'completed' });
    const deltas = h.events.filter((e) => e.type === 'text');
    expect(deltas.length).toBeGreaterThan(1);
    expect(h.events.at(-1)).toMatchObject({ type: 'done', reason: 'completed', threadId: 'thread-1' });
    expect(h.server.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'hi' });
    expect(h.events.some((e) => e.type === 'usage')).toBe(true);
  });

  it('runs tools, feeds results back and completes a multi-step task', async () => {
    h = await createHarness({
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/notes/a.md', content: 'alpha\n' } }] },
        { toolCalls: [{ name: 'read_file', args: { file_path: '/notes/a.md' } }, { name: 'ls', args: { path: '/notes' } }] },
        { text: 'Wrote and checked /notes/a.md.' },
      ],
    });
    const result = await h.run('make a note');
    expect(result.reason).toBe('completed');
    expect(readFileSync(join(h.ws.folder, 'notes/a.md'), 'utf8')).toBe('alpha\n');
    const third = h.server.requests[2]!;
    assertToolPairing(third);
    expect(toolMessages(third).map((m) => textOf(m.content))).toEqual(['Updated file /notes/a.md', '     1\talpha', '/notes/a.md (6 bytes)']);
    const calls = h.events.filter((e) => e.type === 'tool_call').map((e) => (e.type === 'tool_call' ? e.name : ''));
    expect(calls).toEqual(['write_file', 'read_file', 'ls']);
  });

  it('turns malformed tool-call JSON into an error result and goes on', async () => {
    h = await createHarness({
      script: [{ toolCalls: [{ name: 'read_file', args: '{"file_path": "/x' }] }, { text: 'Sorry, retrying later.' }],
    });
    const result = await h.run('read x');
    expect(result.reason).toBe('completed');
    const second = h.server.requests[1]!;
    assertToolPairing(second);
    expect(lastToolText(second)).toMatch(/^Error: .*not valid JSON/);
  });

  it('reports an unknown tool as an error result', async () => {
    h = await createHarness({ script: [{ toolCalls: [{ name: 'frobnicate', args: {} }] }, { text: 'ok' }] });
    await h.run('go');
    expect(lastToolText(h.server.requests[1]!)).toBe("Error: unknown tool 'frobnicate'");
  });

  it('retries a 429 and then succeeds with one set of events', async () => {
    h = await createHarness({ script: [{ error: { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } } }, { text: 'made it' }] });
    const result = await h.run('hi');
    expect(result).toEqual({ text: 'made it', reason: 'completed' });
    expect(h.server.requests).toHaveLength(2);
    expect(h.events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : '')).join('')).toBe('made it');
  });

  it('tells the window about each retry: the next attempt, of how many, after what wait and why', async () => {
    h = await createHarness({
      script: [
        { error: { status: 503, headers: { 'retry-after': '0' }, body: { error: { message: 'overloaded' } } } },
        { error: { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } } },
        { text: 'third time lucky' },
      ],
    });
    await h.run('hi');
    const retries = h.events.filter((e) => e.type === 'retry');
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({ type: 'retry', threadId: 'thread-1', attempt: 2, maxAttempts: 5, delayMs: 0 });
    expect(retries[1]).toMatchObject({ attempt: 3, maxAttempts: 5 });
    expect(retries[1]!.type === 'retry' && retries[1]!.message).toMatch(/slow down/);
    expect(h.events.findIndex((e) => e.type === 'retry')).toBeLessThan(h.events.findIndex((e) => e.type === 'text'));
  });

  it("streams a running command's output to its card as plain lines, before its result", async () => {
    h = await createHarness({
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'for i in 1 2 3; do printf "\\033[1mtick-$i\\033[0m\\n"; sleep 0.4; done' } }] }, { text: 'ok' }],
      // The analyser asks for a computed printf format; the person approves.
      decide: async () => ({ type: 'approve' }),
    });
    await h.run('count');
    const chunks = h.events.flatMap((e) => (e.type === 'tool_output' ? [e] : []));
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    const text = chunks.map((c) => c.chunk).join('');
    expect(text).toContain('tick-1\n');
    expect(text).toContain('tick-2\n');
    expect(text).not.toContain('\x1b');
    const call = h.events.find((e) => e.type === 'tool_call');
    expect(chunks.every((c) => call?.type === 'tool_call' && c.id === call.id)).toBe(true);
    const resultAt = h.events.findIndex((e) => e.type === 'tool_result');
    expect(h.events.findIndex((e) => e.type === 'tool_output')).toBeLessThan(resultAt);
    expect(h.events.slice(resultAt).some((e) => e.type === 'tool_output')).toBe(false);
  });

  it('ends with an error after persistent server failures', async () => {
    h = await createHarness({ script: Array.from({ length: 6 }, () => ({ error: { status: 503 } })) });
    const result = await h.run('hi');
    expect(result.reason).toBe('error');
    expect(h.events.some((e) => e.type === 'error')).toBe(true);
  });

  it('stops a running command and the model call on abort, keeping a valid history', async () => {
    // The command outlasts the test: only the abort can end the run.
    h = await createHarness({ script: [{ toolCalls: [{ name: 'execute', args: { command: 'sleep 600' } }] }] });
    const controller = new AbortController();
    const pending = h.run('wait', controller.signal);
    await waitFor(() => h!.events.some((e) => e.type === 'tool_call'));
    controller.abort();
    const result = await pending;
    expect(result.reason).toBe('aborted');
    const last = h.state.messages.at(-1)!;
    expect(last.role).toBe('tool');
  });

  it('sends an image read by read_file to a model that takes images, and the §12 notice to one set to take none', async () => {
    const png = makePng(4, 3);
    const readImage = { toolCalls: [{ name: 'read_file', args: { file_path: '/pic.png' } }] };
    // openai-compatible takes images by its row of the table; Settings can take them away.
    for (const [mediaInput, expectImage] of [[undefined, true], [[], false]] as const) {
      h = await createHarness({ script: [readImage, { text: 'seen' }], ...(mediaInput ? { mediaInput } : {}) });
      writeFileSync(join(h.ws.folder, 'pic.png'), png);
      await h.run('look');
      const sent = JSON.stringify(h.server.requests[1]!.messages);
      expect(sent.includes(png.toString('base64')), `override ${JSON.stringify(mediaInput)}`).toBe(expectImage);
      // The size is read_file's to state (checked in its own tests): here, that it is the §12 line.
      if (!expectImage) expect(lastToolText(h.server.requests[1]!)).toMatch(/^\[image file \/pic\.png, \d+ B: this model does not take image input\]$/m);
      await h.dispose();
      h = undefined;
    }
  });

  it('puts AGENTS.md and /memories/AGENTS.md into the system prompt', async () => {
    h = await createHarness({ script: [{ text: 'ok' }] });
    writeFileSync(join(h.ws.folder, 'AGENTS.md'), 'Always use tabs.\n');
    await h.ws.mounts.memories.write('/AGENTS.md', 'The person is called Ada.\n');
    await h.run('hi');
    const system = textOf(h.server.requests[0]!.messages[0]!.content);
    expect(h.server.requests[0]!.messages[0]!.role).toBe('system');
    expect(system).toContain('Always use tabs.');
    expect(system).toContain('The person is called Ada.');
    expect(system).toContain('/memories/');
  });

  it("takes CLAUDE.md as the project's instructions where there is no AGENTS.md, and AGENTS.md where there are both", async () => {
    h = await createHarness({ script: [{ text: 'one' }, { text: 'two' }] });
    writeFileSync(join(h.ws.folder, 'CLAUDE.md'), 'Run make check before committing.\n');
    await h.run('hi');
    const first = textOf(h.server.requests[0]!.messages[0]!.content);
    expect(first).toContain('## Project instructions (/CLAUDE.md)\nRun make check before committing.');
    writeFileSync(join(h.ws.folder, 'AGENTS.md'), 'Always use tabs.\n');
    await h.run('again');
    const second = textOf(h.server.requests[1]!.messages[0]!.content);
    expect(second).toContain('## Project instructions (/AGENTS.md)\nAlways use tabs.');
    expect(second).not.toContain('Run make check');
  });
});

describe('large result eviction', () => {
  it('evicts a big tool result and lets the agent page it back with read_file', async () => {
    const readBack: ScriptStep = (req) => {
      const path = /\/large_tool_results\/[^\s"]+/.exec(lastToolText(req))![0].replace(/[.,]$/, '');
      return { toolCalls: [{ name: 'read_file', args: { file_path: path, offset: 100, limit: 3 } }] };
    };
    h = await createHarness({
      evictChars: 2_000,
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'seq 1 1000' }, id: 'call.big/1' }] }, readBack, { text: 'done' }],
    });
    await h.run('count');
    const evicted = lastToolText(h.server.requests[1]!);
    expect(evicted).toContain('/large_tool_results/call_big_1');
    expect(evicted).toContain('read_file');
    expect(evicted).toMatch(/^1$/m);
    expect(evicted).toContain('... [991 lines truncated] ...');
    expect(evicted).toMatch(/\[Command succeeded with exit code 0\]$/);
    expect(evicted.length).toBeLessThan(2_000);
    expect(lastToolText(h.server.requests[2]!)).toBe('   101\t101\n   102\t102\n   103\t103\n\n[Showing lines 101-103 of 1001. Continue with offset=103.]');
  });

  it('never evicts read_file results', async () => {
    h = await createHarness({ evictChars: 100, script: [{ toolCalls: [{ name: 'read_file', args: { file_path: '/big.txt' } }] }, { text: 'ok' }] });
    writeFileSync(join(h.ws.folder, 'big.txt'), 'x'.repeat(500) + '\n');
    await h.run('read');
    expect(lastToolText(h.server.requests[1]!)).toBe(`     1\t${'x'.repeat(500)}`);
  });

  it('evicts a huge user message to /conversation_history/', async () => {
    h = await createHarness({ script: [{ text: 'got it' }] });
    await h.run('y'.repeat(250_000));
    const sent = textOf(h.server.requests[0]!.messages.at(-1)!.content);
    expect(sent).toMatch(/\/conversation_history\/\S+/);
    expect(sent.length).toBeLessThan(10_000);
    const path = /\/conversation_history\/[^\s"]+/.exec(sent)![0].replace(/[.,]$/, '');
    const stored = await h.ws.mounts.backend.readRaw(path);
    expect(Buffer.from(stored.data!).toString()).toBe('y'.repeat(250_000));
  });
});

describe('write_todos', () => {
  it('replaces the list and streams it', async () => {
    h = await createHarness({
      script: [
        { toolCalls: [{ name: 'write_todos', args: { todos: [{ content: 'read code', status: 'in_progress' }, { content: 'fix bug', status: 'pending' }] } }] },
        { toolCalls: [{ name: 'write_todos', args: { todos: [{ content: 'read code', status: 'completed' }] } }] },
        { text: 'done' },
      ],
    });
    await h.run('plan');
    const todoEvents = h.events.filter((e) => e.type === 'todos');
    expect(todoEvents).toHaveLength(2);
    expect(h.state.todos).toEqual([{ content: 'read code', status: 'completed' }]);
    expect(textOf(h.server.requests[2]!.messages[0]!.content)).toContain('[completed] read code');
  });

  it('refuses both of two calls in one turn', async () => {
    h = await createHarness({
      script: [
        {
          toolCalls: [
            { name: 'write_todos', args: { todos: [{ content: 'a', status: 'pending' }] } },
            { name: 'write_todos', args: { todos: [{ content: 'b', status: 'pending' }] } },
          ],
        },
        { text: 'ok' },
      ],
    });
    await h.run('plan');
    expect(toolMessages(h.server.requests[1]!).map((m) => textOf(m.content))).toEqual([expect.stringMatching(/^Error: /), expect.stringMatching(/^Error: /)]);
    expect(h.state.todos).toEqual([]);
  });
});

describe('subagents', () => {
  it('a subagent reads media as its model takes them: the notice under an override of []', async () => {
    const png = makePng(4, 3);
    const script: ScriptStep[] = [
      { toolCalls: [{ name: 'task', args: { description: 'look at /pic.png', subagent_type: 'general-purpose' } }] },
      { toolCalls: [{ name: 'read_file', args: { file_path: '/pic.png' } }] },
      { text: 'a red square' },
      { text: 'The subagent saw a red square.' },
    ];
    h = await createHarness({ script, mediaInput: [] });
    writeFileSync(join(h.ws.folder, 'pic.png'), png);
    await h.run('what is in pic.png?');
    const subagentAfterRead = h.server.requests[2]!;
    expect(textOf(subagentAfterRead.messages[0]!.content)).toContain('You are a subagent');
    expect(JSON.stringify(subagentAfterRead.messages)).not.toContain(png.toString('base64'));
    expect(lastToolText(subagentAfterRead)).toMatch(/^\[image file \/pic\.png, \d+ B: this model does not take image input\]$/m);
  });

  it("a subagent's tools (Claude Code's names) limit what it is offered and what it can call: a write it was not given does not happen", async () => {
    const script: ScriptStep[] = [
      { toolCalls: [{ name: 'task', args: { description: 'write /secret.txt', subagent_type: 'reader' } }] },
      { toolCalls: [{ name: 'write_file', args: { file_path: '/secret.txt', content: 'x' } }] },
      { text: 'could not write' },
      { text: 'done' },
    ];
    h = await createHarness({ script, subagents: [{ name: 'reader', description: 'reads', systemPrompt: 'You read.', tools: ['Read', 'Grep'] }] });
    await h.run('go');
    expect(existsSync(join(h.ws.folder, 'secret.txt'))).toBe(false);
    const offered = (h.server.requests[1]!.tools ?? []).map((t) => t.function.name).sort();
    expect(offered).toEqual(['grep', 'read_file']);
    expect(lastToolText(h.server.requests[2]!)).toMatch(/^Error: /);
  });

  it('runs two task calls in parallel, isolated, and both writes land', async () => {
    // One responder for every request: the parent, and each subagent by its task text.
    const responder: ScriptStep = (req) => {
      const system = textOf(req.messages[0]!.content);
      if (!system.includes('You are a subagent')) {
        if (req.messages.some((m) => m.role === 'tool')) return { text: 'Both subagents finished.' };
        return {
          toolCalls: [
            { name: 'task', args: { description: 'write /one.txt containing 1', subagent_type: 'general-purpose' } },
            { name: 'task', args: { description: 'write /two.txt containing 2', subagent_type: 'general-purpose' } },
          ],
        };
      }
      const task = textOf(req.messages.find((m) => m.role === 'user')!.content);
      const target = task.includes('/one.txt') ? ['/one.txt', '1\n'] : ['/two.txt', '2\n'];
      if (req.messages.some((m) => m.role === 'tool')) return { text: `wrote ${target[0]}` };
      // The subagent sees only its own task, never the parent's conversation.
      if (req.messages.filter((m) => m.role === 'user').length !== 1) return { text: 'LEAKED CONTEXT' };
      return { toolCalls: [{ name: 'write_file', args: { file_path: target[0], content: target[1] } }] };
    };
    h = await createHarness({ script: Array.from({ length: 7 }, () => responder) });
    const result = await h.run('split the work');
    expect(result.text).toBe('Both subagents finished.');
    expect(readFileSync(join(h.ws.folder, 'one.txt'), 'utf8')).toBe('1\n');
    expect(readFileSync(join(h.ws.folder, 'two.txt'), 'utf8')).toBe('2\n');
    const final = h.server.requests.at(-1)!;
    expect(toolMessages(final).map((m) => textOf(m.content)).sort()).toEqual(['wrote /one.txt', 'wrote /two.txt']);
    const taskIds = h.events.filter((e) => e.type === 'tool_call' && e.name === 'task').map((e) => (e.type === 'tool_call' ? e.id : ''));
    const nested = h.events.filter((e) => e.parentToolCallId !== undefined);
    expect(new Set(nested.map((e) => e.parentToolCallId))).toEqual(new Set(taskIds));
    expect(nested.some((e) => e.type === 'tool_call' && e.name === 'write_file')).toBe(true);
    expect(nested.every((e) => e.threadId === 'thread-1')).toBe(true);
    // Each subagent's transcript stays with the thread, under its task call.
    expect(Object.keys(h.state.subagentRuns ?? {}).sort()).toEqual([...taskIds].sort());
    for (const id of taskIds) expect(h.state.subagentRuns![id]!.some((m) => m.role === 'assistant' && m.toolCalls?.[0]?.name === 'write_file')).toBe(true);
  });
});

describe('human approval', () => {
  const askWrites = [{ tools: ['write_file'], decision: 'ask' as const }, { tools: ['*'], decision: 'allow' as const }];
  const writeStep: ScriptStep = { toolCalls: [{ name: 'write_file', args: { file_path: '/out.txt', content: 'original\n' } }] };

  it('rejects: nothing is written and the agent gets the message', async () => {
    h = await createHarness({ rules: askWrites, decisions: [{ type: 'reject', message: 'not now' }], script: [writeStep, { text: 'ok' }] });
    await h.run('write');
    expect(existsSync(join(h.ws.folder, 'out.txt'))).toBe(false);
    expect(lastToolText(h.server.requests[1]!)).toMatch(/^Error: the person rejected .*not now/);
    expect(h.approvals[0]).toMatchObject({ toolName: 'write_file', threadId: 'thread-1' });
  });

  it('edits: the edited arguments run', async () => {
    h = await createHarness({ rules: askWrites, decisions: [{ type: 'edit', args: { file_path: '/out.txt', content: 'edited\n' } }], script: [writeStep, { text: 'ok' }] });
    await h.run('write');
    expect(readFileSync(join(h.ws.folder, 'out.txt'), 'utf8')).toBe('edited\n');
  });

  it('responds: the answer is the result and nothing runs', async () => {
    h = await createHarness({ rules: askWrites, decisions: [{ type: 'respond', message: 'use /other.txt instead' }], script: [writeStep, { text: 'ok' }] });
    await h.run('write');
    expect(existsSync(join(h.ws.folder, 'out.txt'))).toBe(false);
    expect(lastToolText(h.server.requests[1]!)).toContain('use /other.txt instead');
  });

  it('denies by rule without asking', async () => {
    h = await createHarness({ rules: [{ tools: ['write_file'], decision: 'deny' }, { tools: ['*'], decision: 'allow' }], script: [writeStep, { text: 'ok' }] });
    await h.run('write');
    expect(h.approvals).toHaveLength(0);
    expect(existsSync(join(h.ws.folder, 'out.txt'))).toBe(false);
    expect(lastToolText(h.server.requests[1]!)).toMatch(/^Error: .*not allowed/);
  });

  it('decides each of several parallel calls', async () => {
    h = await createHarness({
      rules: askWrites,
      decisions: [{ type: 'approve' }, { type: 'reject' }],
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'a' } }, { name: 'write_file', args: { file_path: '/b.txt', content: 'b' } }] },
        { text: 'ok' },
      ],
    });
    await h.run('write two');
    expect(h.approvals).toHaveLength(2);
    expect([existsSync(join(h.ws.folder, 'a.txt')), existsSync(join(h.ws.folder, 'b.txt'))].filter(Boolean)).toHaveLength(1);
  });
});

describe('summarization', () => {
  it('summarizes under a small window, keeps the latest user message and every call with its result', async () => {
    const filler = (n: number) => `${'lorem ipsum dolor sit amet '.repeat(60)} #${n}`;
    const responder: ScriptStep = (req) => {
      if (textOf(req.messages[0]!.content).includes('You compress the earlier part')) {
        return { text: '## Intent\nRead the files.\n## Done so far\nRead several files.\n## Artifacts\nnone\n## Open questions and next steps\nkeep reading' };
      }
      const reads = req.messages.filter((m) => m.role === 'tool').length;
      if (lastUserText(req).includes('FINAL QUESTION') && reads >= 1 && req.messages.at(-1)!.role === 'tool') return { text: 'All read.' };
      return { toolCalls: [{ name: 'execute', args: { command: `echo "${filler(reads)}"` } }] };
    };
    h = await createHarness({ contextWindow: 4_000, script: Array.from({ length: 40 }, () => responder) });
    for (let i = 0; i < 4; i++) {
      h.state.messages.push({ role: 'user', content: `earlier request ${i}: ${filler(i)}` }, { role: 'assistant', content: `answer ${i}: ${filler(i)}` });
    }
    const result = await h.run('FINAL QUESTION: read everything');
    expect(result.reason).toBe('completed');
    const summarized = h.events.filter((e) => e.type === 'summarized');
    expect(summarized.length).toBeGreaterThan(0);
    const archivePath = '/conversation_history/thread-1.md';
    expect(summarized[0]).toMatchObject({ archivePath });
    const archive = await h.ws.mounts.backend.readRaw(archivePath);
    expect(Buffer.from(archive.data!).toString()).toContain('earlier request 0');
    // Every request after the summary: summary first, latest user message verbatim, valid pairing.
    const after = h.server.requests.filter((r) => textOf(r.messages[1]?.content).includes(archivePath));
    expect(after.length).toBeGreaterThan(0);
    for (const req of after) {
      assertToolPairing(req);
      expect(req.messages.some((m) => m.role === 'user' && textOf(m.content) === 'FINAL QUESTION: read everything')).toBe(true);
      expect(textOf(req.messages[1]!.content)).toContain('## Intent');
    }
    // Nothing was lost: the full history is still in the thread.
    expect(h.state.messages.filter((m) => m.role === 'user')).toHaveLength(5);
    expect(h.state.contextStart).toBeGreaterThan(0);
  });

  it('summarizes and retries when the provider reports a context overflow', async () => {
    const overflow = { error: { status: 400, body: { error: { message: "This model's maximum context length is 10 tokens.", code: 'context_length_exceeded', type: 'invalid_request_error' } } } };
    h = await createHarness({ script: [overflow, { text: '## Intent\nx\n## Done so far\ny' }, { text: 'answered after summary' }] });
    for (let i = 0; i < 6; i++) h.state.messages.push({ role: 'user', content: `old ${i}` }, { role: 'assistant', content: `reply ${i}` });
    const result = await h.run('new question');
    expect(result).toEqual({ text: 'answered after summary', reason: 'completed' });
    expect(h.events.some((e) => e.type === 'summarized')).toBe(true);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
