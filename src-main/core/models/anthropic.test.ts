import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { ContextOverflowError } from './errors';
import type { ModelRequest } from './types';
import { notTakenNotice } from '../media/kinds';
import { makePdf, makeWav } from '../media/testing/fixtures';

// A tiny stand-in for api.anthropic.com: records each request and answers with the next reply,
// in the Messages API streaming format (message_start / content_block_* / message_delta / message_stop).
type Reply = { status: number; json: unknown } | { sse: Array<Record<string, unknown>> };

interface FakeAnthropic {
  url: string;
  bodies: Array<Record<string, unknown>>;
  headers: IncomingHttpHeaders[];
  server: Server;
}

const fakes: FakeAnthropic[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) {
    fake.server.closeAllConnections();
    await new Promise((resolve) => fake.server.close(resolve));
  }
});

async function startFake(replies: Reply[]): Promise<FakeAnthropic> {
  const fake: FakeAnthropic = { url: '', bodies: [], headers: [], server: createServer() };
  fake.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      fake.bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      fake.headers.push(req.headers);
      const reply = replies.shift();
      if (!reply || req.url !== '/v1/messages') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: `fake: no reply for ${req.url}` } }));
        return;
      }
      if ('json' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.json));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of reply.sse) res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`;
  fakes.push(fake);
  return fake;
}

function messageStream(blocks: Array<{ text: string } | { tool: string; id: string; json: string[] }>, stopReason: string): Reply {
  const sse: Array<Record<string, unknown>> = [
    {
      type: 'message_start',
      message: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, cache_creation_input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 1 },
      },
    },
  ];
  blocks.forEach((block, index) => {
    if ('text' in block) {
      sse.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of [block.text.slice(0, 3), block.text.slice(3)]) {
        sse.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      }
    } else {
      sse.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.tool, input: {} } });
      for (const piece of block.json) sse.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    sse.push({ type: 'content_block_stop', index });
  });
  sse.push(
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 30 } },
    { type: 'message_stop' },
  );
  return { sse };
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
    const start = (messageStream([], 'end_turn') as { sse: Array<Record<string, unknown>> }).sse;
    const fake = await startFake([
      {
        sse: [
          start[0]!,
          { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Which file?' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'ant-sig-1' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_t', name: 'ls', input: {} } },
          { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } },
          { type: 'content_block_stop', index: 1 },
          ...start.slice(-2).map((event) => (event.type === 'message_delta' ? { ...event, delta: { stop_reason: 'tool_use', stop_sequence: null } } : event)),
        ],
      },
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
