import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { AbortedError, ContextOverflowError, ModelError } from './errors';
import { lastUserText, startScriptedServer } from './testing/scripted-server';
import type { ScriptStep, ScriptedServer } from './testing/scripted-server';
import type { RetryPolicy } from './retry';
import type { ChatModel, ModelEvent, ModelRequest } from './types';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setup(script: ScriptStep[], provider: 'openai-compatible' | 'ollama' | 'openai' = 'openai-compatible', retry: RetryPolicy = {}) {
  const server = await startScriptedServer(script);
  servers.push(server);
  const model = createChatModel({
    model: `${provider}:qwen3`,
    baseUrl: server.url,
    apiKey: provider === 'openai' ? 'sk-test' : undefined,
    env: {},
    retry: { baseDelayMs: 1, maxDelayMs: 5, ...retry },
  });
  return { server, model };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 45_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const TOOLS = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'ls', description: 'List a folder', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];

function request(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are a test.', messages: [{ role: 'user', content: text }], tools: TOOLS, ...extra };
}

async function events(model: ChatModel, req: ModelRequest): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of model.stream(req)) out.push(event);
  return out;
}

describe('AiSdkChatModel over the OpenAI-compatible provider', () => {
  it('streams text in several deltas and finishes with usage', async () => {
    const { server, model } = await setup([{ text: 'Hello there, world!', usage: { promptTokens: 42, completionTokens: 7, cachedTokens: 10 } }]);
    const out = await events(model, request('hi'));
    const deltas = out.filter((e) => e.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => (e.type === 'text-delta' ? e.text : '')).join('')).toBe('Hello there, world!');
    expect(out.at(-1)).toEqual({
      type: 'finish',
      stopReason: 'stop',
      usage: { inputTokens: 42, outputTokens: 7, cacheReadTokens: 10, cacheWriteTokens: 0 },
    });

    const body = server.requests[0];
    expect(body?.stream).toBe(true);
    expect(body?.stream_options).toEqual({ include_usage: true });
    expect(body?.model).toBe('qwen3');
    expect(body?.messages[0]).toEqual({ role: 'system', content: 'You are a test.' });
    expect(body?.tools?.map((t) => t.function.name)).toEqual(['read_file', 'ls']);
    expect(body?.tools?.[0]?.function.parameters).toEqual(TOOLS[0]?.parameters);
  });

  it('joins tool-call argument deltas into one call', async () => {
    const { model } = await setup([{ text: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'read_file', args: { path: '/src/main.ts' } }] }]);
    const out = await events(model, request('read main'));
    expect(out.find((e) => e.type === 'tool-call-start')).toEqual({ type: 'tool-call-start', id: 'call_1', name: 'read_file' });
    const calls = out.filter((e) => e.type === 'tool-call');
    expect(calls).toEqual([
      { type: 'tool-call', call: { id: 'call_1', name: 'read_file', args: { path: '/src/main.ts' }, argsText: '{"path":"/src/main.ts"}' } },
    ]);
    expect(out.at(-1)).toMatchObject({ type: 'finish', stopReason: 'tool-calls' });
  });

  it('reports two parallel tool calls in one turn, in order', async () => {
    const { model } = await setup([
      {
        toolCalls: [
          { id: 'a', name: 'read_file', args: { path: '/a.txt' } },
          { id: 'b', name: 'ls', args: { path: '/' } },
        ],
      },
    ]);
    const result = await collectResponse(model.stream(request('both')));
    expect(result.text).toBe('');
    expect(result.toolCalls.map((c) => [c.id, c.name, c.args])).toEqual([
      ['a', 'read_file', { path: '/a.txt' }],
      ['b', 'ls', { path: '/' }],
    ]);
    expect(result.stopReason).toBe('tool-calls');
  });

  it('reports malformed tool-call JSON with parseError and the raw text', async () => {
    const raw = '{"path": "/a.txt", oops';
    const { model } = await setup([{ toolCalls: [{ id: 'bad', name: 'read_file', args: raw }] }]);
    const result = await collectResponse(model.stream(request('x')));
    expect(result.toolCalls).toHaveLength(1);
    const call = result.toolCalls[0];
    expect(call?.argsText).toBe(raw);
    expect(call?.parseError).toMatch(/Invalid JSON in tool call arguments/);
    expect(call?.args).toEqual({});
  });

  it('maps reasoning_content to reasoning deltas', async () => {
    const { model } = await setup([{ reasoning: 'thinking hard', text: 'done' }]);
    const result = await collectResponse(model.stream(request('x')));
    expect(result.reasoning).toBe('thinking hard');
    expect(result.text).toBe('done');
  });

  it('retries a 429 before any output and emits only one set of events', async () => {
    const retries: number[] = [];
    const { server, model } = await setup([{ error: { status: 429, headers: { 'retry-after': '0' } } }, { text: 'after retry' }], 'openai-compatible', {
      onRetry: (info) => retries.push(info.attempt),
    });
    const out = await events(model, request('x'));
    expect(out.filter((e) => e.type === 'text-delta').map((e) => (e.type === 'text-delta' ? e.text : '')).join('')).toBe('after retry');
    expect(out.filter((e) => e.type === 'finish')).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    expect(retries).toEqual([1]);
  });

  it('gives up after 5 attempts on repeated 500s with a clear ModelError', async () => {
    const fail: ScriptStep = { error: { status: 500, body: { error: { message: 'upstream exploded', type: 'server_error' } } } };
    const { server, model } = await setup([fail, fail, fail, fail, fail]);
    const err = await events(model, request('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).message).toBe('openai-compatible:qwen3 failed after 5 attempts: HTTP 500: upstream exploded');
    expect((err as ModelError).status).toBe(500);
    expect((err as ModelError).provider).toBe('openai-compatible');
    expect(server.requests).toHaveLength(5);
  });

  it('recognises a context overflow 400 and does not retry it', async () => {
    const body = {
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    };
    const { server, model } = await setup([{ error: { status: 400, body } }, { text: 'never' }]);
    const err = await events(model, request('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect((err as ContextOverflowError).message).toMatch(/^openai-compatible:qwen3: HTTP 400: This model's maximum context length/);
    expect(server.requests).toHaveLength(1);
  });

  it('recognises llama.cpp and vLLM overflow bodies', async () => {
    const llamaCpp = { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' } };
    const vllm = { object: 'error', message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", type: 'BadRequestError', code: 400 };
    const { model } = await setup([{ error: { status: 400, body: llamaCpp } }, { error: { status: 400, body: vllm } }]);
    await expect(events(model, request('x'))).rejects.toBeInstanceOf(ContextOverflowError);
    const err = await events(model, request('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect((err as Error).message).toContain('maximum context length is 4096');
  });

  it('does not retry 401 and keeps the server message', async () => {
    const { server, model } = await setup([{ error: { status: 401, body: { error: { message: 'Invalid API key', type: 'auth' } } } }]);
    const err = await events(model, request('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).retryable).toBe(false);
    expect((err as Error).message).toBe('openai-compatible:qwen3: HTTP 401: Invalid API key');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a connection dropped before any output, but not one dropped after text', async () => {
    const { server, model } = await setup([{ disconnect: true }, { text: 'second try' }]);
    const result = await collectResponse(model.stream(request('x')));
    expect(result.text).toBe('second try');
    expect(server.requests).toHaveLength(2);

    server.push({ disconnect: true, text: 'partial' }, { text: 'must not be used' });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const event of model.stream(request('y'))) if (event.type === 'text-delta') seen.push(event.text);
    })().catch((e: unknown) => e);
    expect(seen.join('')).toBe('partial');
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).message).toMatch(/^openai-compatible:qwen3: Network error: /);
    expect(server.requests).toHaveLength(3);
  });

  it('retries a refused connection, then says so', async () => {
    const gone = await startScriptedServer();
    const url = gone.url;
    await gone.close();
    const model = createChatModel({ model: 'openai-compatible:q', baseUrl: url, env: {}, retry: { baseDelayMs: 1, maxRetries: 2 } });
    const err = await events(model, request('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).message).toMatch(/^openai-compatible:q failed after 3 attempts: Network error: .*ECONNREFUSED/);
  });

  it('aborts a hanging stream promptly with AbortedError', async () => {
    const { server, model } = await setup([{ hang: true, text: 'started' }]);
    const controller = new AbortController();
    const iterator = model.stream(request('x', { signal: controller.signal }))[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toEqual({ type: 'text-delta', text: 'started' });
    // The clock stands still: only the abort can end the wait (no retry, no timeout).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const pending = iterator.next();
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(AbortedError);
    } finally {
      vi.useRealTimers();
    }
    expect(server.requests).toHaveLength(1);
  });

  it('aborts during a retry wait', async () => {
    const { server, model } = await setup([{ error: { status: 503 } }], 'openai-compatible', { baseDelayMs: 60_000, maxDelayMs: 60_000 });
    const controller = new AbortController();
    const pending = model.stream(request('x', { signal: controller.signal }))[Symbol.asyncIterator]().next();
    await until(() => server.requests.length === 1);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });

  it('aborts a request whose stream has not produced output yet (openai provider)', async () => {
    const { server, model } = await setup([{ hang: true }], 'openai');
    const controller = new AbortController();
    const pending = model.stream(request('x', { signal: controller.signal }))[Symbol.asyncIterator]().next();
    await until(() => server.requests.length === 1);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });

  it('sends history with tool calls, tool results and images (images follow tool results as a user message)', async () => {
    const { server, model } = await setup([(req) => ({ text: `echo: ${lastUserText(req)}` })]);
    const png = Buffer.from('fake png').toString('base64');
    const result = await collectResponse(
      model.stream({
        system: 'sys',
        tools: TOOLS,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'look at this' }, { type: 'image', mimeType: 'image/png', data: png }] },
          {
            role: 'assistant',
            content: 'Reading.',
            toolCalls: [
              { id: 'c1', name: 'read_file', args: { path: '/a.png' }, argsText: '{"path":"/a.png"}' },
              { id: 'c2', name: 'ls', args: {}, argsText: '{bad', parseError: 'Invalid JSON' },
            ],
          },
          { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: 'image /a.png' }, { type: 'image', mimeType: 'image/png', data: png }] },
          { role: 'tool', toolCallId: 'c2', toolName: 'ls', content: 'Error: invalid arguments', isError: true },
          { role: 'user', content: 'and now?' },
        ],
      }),
    );
    expect(result.text).toBe('echo: and now?');
    const messages = server.requests[0]?.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user', 'user']);
    expect(messages[1]?.content).toEqual([
      { type: 'text', text: 'look at this' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
    ]);
    expect(messages[2]?.content).toBe('Reading.');
    expect(messages[2]?.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"/a.png"}' } },
      { id: 'c2', type: 'function', function: { name: 'ls', arguments: '{}' } },
    ]);
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'c1', content: 'image /a.png\n[1 image attached in the next message]' });
    expect(messages[4]).toMatchObject({ role: 'tool', tool_call_id: 'c2', content: 'Error: invalid arguments' });
    expect(messages[5]?.content).toEqual([
      { type: 'text', text: 'Image (image/png, 8 B) returned by read_file (call c1):' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
    ]);
    expect(messages[6]?.content).toBe('and now?');
  });

  it('works the same through the openai and ollama providers', async () => {
    for (const provider of ['openai', 'ollama'] as const) {
      const { server, model } = await setup([{ text: 'ok', toolCalls: [{ id: 'x', name: 'ls', args: { path: '/' } }] }], provider);
      const result = await collectResponse(model.stream(request('x', { maxOutputTokens: 100 })));
      expect(result.text).toBe('ok');
      expect(result.toolCalls[0]?.args).toEqual({ path: '/' });
      expect(server.requests[0]?.stream_options).toEqual({ include_usage: true });
      if (provider === 'openai') expect(server.requestHeaders[0]?.authorization).toBe('Bearer sk-test');
      else expect(server.requestHeaders[0]?.authorization).toBeUndefined();
    }
  });

  it('stops reading when the consumer breaks out early', async () => {
    const { server, model } = await setup([{ hang: true, text: 'first' }, { text: 'next' }]);
    for await (const event of model.stream(request('x'))) {
      expect(event.type).toBe('text-delta');
      break;
    }
    const result = await collectResponse(model.stream(request('y')));
    expect(result.text).toBe('next');
    expect(server.requests).toHaveLength(2);
  });
});
