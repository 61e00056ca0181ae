import { afterEach, describe, expect, it } from 'vitest';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { ContextOverflowError } from './errors';
import { anthropicMessageStream as messageStream, startScriptedAnthropicServer } from './testing/scripted-anthropic-server';
import type { AnthropicReply, ScriptedAnthropicServer } from './testing/scripted-anthropic-server';
import type { ModelRequest } from './types';
import { notTakenNotice } from '../media/kinds';
import { makePdf, makeWav } from '../media/testing/fixtures';

const fakes: ScriptedAnthropicServer[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function startFake(replies: AnthropicReply[]): Promise<ScriptedAnthropicServer> {
  const fake = await startScriptedAnthropicServer(replies);
  fakes.push(fake);
  return fake;
}

const TOOLS = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'ls', description: 'List a folder', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];

function model(url: string) {
  return createChatModel({ model: 'anthropic:claude-sonnet-4-5', baseUrl: url, apiKey: 'sk-ant-test', env: {}, retry: { baseDelayMs: 1 } });
}

const png = Buffer.from('png bytes').toString('base64');
const history: ModelRequest['messages'] = [
  { role: 'user', content: 'read a.png' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_a', name: 'read_file', args: { path: '/a.png' }, argsText: '{"path":"/a.png"}' }] },
  { role: 'tool', toolCallId: 'toolu_a', toolName: 'read_file', content: [{ type: 'text', text: 'image /a.png' }, { type: 'image', mimeType: 'image/png', data: png }] },
  { role: 'assistant', content: 'Now ls.', toolCalls: [{ id: 'toolu_b', name: 'ls', args: { path: '/nope' }, argsText: '{"path":"/nope"}' }] },
  { role: 'tool', toolCallId: 'toolu_b', toolName: 'ls', content: 'Error: path not found: /nope', isError: true },
];

describe('AiSdkChatModel over the Anthropic provider', () => {
  it('maps text, tool calls and cache usage from the Messages stream', async () => {
    const fake = await startFake([
      messageStream([{ text: 'Let me read it.' }, { tool: 'read_file', id: 'toolu_1', json: ['{"pa', 'th": "/a.', 'txt"}'] }], 'tool_use'),
    ]);
    const result = await collectResponse(model(fake.url).stream({ system: 'sys', messages: [{ role: 'user', content: 'go' }], tools: TOOLS }));
    expect(result.text).toBe('Let me read it.');
    expect(result.toolCalls).toEqual([{ id: 'toolu_1', name: 'read_file', args: { path: '/a.txt' }, argsText: '{"path": "/a.txt"}' }]);
    expect(result.stopReason).toBe('tool-calls');
    expect(result.usage).toEqual({ inputTokens: 162, outputTokens: 30, cacheReadTokens: 50, cacheWriteTokens: 100 });
    expect(fake.headers[0]?.['x-api-key']).toBe('sk-ant-test');
    expect(fake.headers[0]?.['anthropic-version']).toBe('2023-06-01');
    expect(fake.bodies[0]?.max_tokens).toBe(32_000);
    expect(fake.bodies[0]?.stream).toBe(true);
  });

  it('reports malformed tool input with parseError', async () => {
    const fake = await startFake([messageStream([{ tool: 'ls', id: 'toolu_x', json: ['{"path": '] }], 'tool_use')]);
    const result = await collectResponse(model(fake.url).stream({ system: '', messages: [{ role: 'user', content: 'go' }], tools: TOOLS }));
    expect(result.toolCalls[0]?.argsText).toBe('{"path": ');
    expect(result.toolCalls[0]?.parseError).toBeDefined();
  });

  it('puts cache breakpoints on the system prompt, the last tool and the last two messages', async () => {
    const fake = await startFake([messageStream([{ text: 'done' }], 'end_turn')]);
    await collectResponse(model(fake.url).stream({ system: 'You are Deepdesk.', messages: history, tools: TOOLS, cacheBreakpoints: true }));
    const body = fake.bodies[0] as {
      system: Array<Record<string, unknown>>;
      tools: Array<Record<string, unknown>>;
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    const ephemeral = { type: 'ephemeral' };
    expect(body.system).toEqual([{ type: 'text', text: 'You are Deepdesk.', cache_control: ephemeral }]);
    expect(body.tools.map((t) => t.cache_control)).toEqual([undefined, ephemeral]);

    // user, assistant(tool_use), user(tool_result), assistant(text + tool_use), user(tool_result)
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    const marked = body.messages.flatMap((m, i) => m.content.map((block, j) => [i, j, block.cache_control] as const)).filter(([, , c]) => c !== undefined);
    expect(marked).toEqual([
      [3, 1, ephemeral],
      [4, 0, ephemeral],
    ]);
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(4);

    // Tool results: images stay inside the tool_result; errors carry is_error.
    expect(body.messages[2]?.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_a',
      content: [
        { type: 'text', text: 'image /a.png' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      ],
    });
    expect(body.messages[4]?.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_b', content: 'Error: path not found: /nope', is_error: true });
    expect(body.messages[1]?.content).toEqual([{ type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: '/a.png' } }]);
  });

  it('sends no cache_control without cacheBreakpoints', async () => {
    const fake = await startFake([messageStream([{ text: 'done' }], 'end_turn')]);
    await collectResponse(model(fake.url).stream({ system: 'sys', messages: history, tools: TOOLS }));
    expect(JSON.stringify(fake.bodies[0])).not.toContain('cache_control');
  });

  it('turns "prompt is too long" into ContextOverflowError without retrying', async () => {
    const fake = await startFake([
      { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' } } },
    ]);
    const err = await collectResponse(model(fake.url).stream({ system: '', messages: [{ role: 'user', content: 'x' }], tools: [] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect((err as Error).message).toBe('anthropic:claude-sonnet-4-5: HTTP 400: prompt is too long: 208310 tokens > 200000 maximum');
    expect(fake.bodies).toHaveLength(1);
  });

  it('retries 529 overloaded and an overloaded error event that arrives before any output', async () => {
    const fake = await startFake([
      { status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      {
        sse: [
          (messageStream([], 'end_turn') as { sse: Array<Record<string, unknown>> }).sse[0] as Record<string, unknown>,
          { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        ],
      },
      messageStream([{ text: 'finally' }], 'end_turn'),
    ]);
    const result = await collectResponse(model(fake.url).stream({ system: '', messages: [{ role: 'user', content: 'x' }], tools: [] }));
    expect(result.text).toBe('finally');
    expect(fake.bodies).toHaveLength(3);
  });

  it('keeps a signed thinking block and sends it back only to Anthropic', async () => {
    const fake = await startFake([
      messageStream([{ thinking: 'Which file?', signature: 'ant-sig-1' }, { tool: 'ls', id: 'toolu_t', json: ['{}'] }], 'tool_use'),
      messageStream([{ text: 'done' }], 'end_turn'),
    ]);
    const first = await collectResponse(model(fake.url).stream({ system: '', messages: [{ role: 'user', content: 'x' }], tools: TOOLS }));
    expect(first.reasoningParts).toEqual([{ text: 'Which file?', providerMetadata: { anthropic: { signature: 'ant-sig-1' } } }]);
    const history = JSON.parse(
      JSON.stringify([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', provider: 'anthropic', reasoning: first.reasoningParts, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'toolu_t', toolName: 'ls', content: 'a.txt' },
      ]),
    ) as ModelRequest['messages'];
    await collectResponse(model(fake.url).stream({ system: '', messages: history, tools: TOOLS }));
    const body = fake.bodies[1] as { messages: Array<{ content: Array<Record<string, unknown>> }> };
    expect(body.messages[1]?.content[0]).toEqual({ type: 'thinking', thinking: 'Which file?', signature: 'ant-sig-1' });
  });

  it('sends images and PDFs inside the tool_result and audio as the notice', async () => {
    const fake = await startFake([messageStream([{ text: 'seen' }], 'end_turn')]);
    const pdf = makePdf(['one']);
    const wav = makeWav(0.05);
    await collectResponse(
      model(fake.url).stream({
        system: '',
        tools: TOOLS,
        messages: [
          { role: 'user', content: 'read them' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_m', name: 'read_file', args: { path: '/d' }, argsText: '{}' }] },
          {
            role: 'tool',
            toolCallId: 'toolu_m',
            toolName: 'read_file',
            content: [
              { type: 'text', text: 'three files' },
              { type: 'image', mimeType: 'image/png', data: png, name: '/a.png' },
              { type: 'file', mimeType: 'application/pdf', data: pdf.toString('base64'), name: '/d.pdf', bytes: pdf.length },
              { type: 'file', mimeType: 'audio/wav', data: wav.toString('base64'), name: '/a.wav', bytes: wav.length },
            ],
          },
        ],
      }),
    );
    const body = fake.bodies[0] as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    expect(body.messages).toHaveLength(3);
    const result = body.messages[2]?.content[0] as { type: string; content: Array<Record<string, unknown>> };
    expect(result.type).toBe('tool_result');
    expect(result.content).toEqual([
      { type: 'text', text: 'three files' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      expect.objectContaining({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') } }),
      { type: 'text', text: notTakenNotice('audio', '/a.wav', wav.length) },
    ]);
  });
});
