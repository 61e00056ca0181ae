import { describe, expect, it } from 'vitest';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { parseModelSpec } from './model-spec';
import { ModelConfigError, ModelError } from './errors';

describe('parseModelSpec', () => {
  it('splits at the first colon', () => {
    expect(parseModelSpec('ollama:qwen3:8b')).toEqual({ provider: 'ollama', model: 'qwen3:8b' });
    expect(parseModelSpec(' anthropic:claude-sonnet-4-5 ')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
  });

  it('explains bad specs', () => {
    expect(() => parseModelSpec('gpt-4o')).toThrow(/Invalid model "gpt-4o": expected PROVIDER:MODEL/);
    expect(() => parseModelSpec(':gpt-4o')).toThrow(ModelConfigError);
    expect(() => parseModelSpec('azure:gpt-4o')).toThrow('Unknown model provider "azure" in "azure:gpt-4o"; use one of: anthropic, openai, google, openai-compatible, ollama');
    expect(() => parseModelSpec('openai:')).toThrow(/Missing model name in "openai:"/);
  });
});

describe('createChatModel', () => {
  it('needs the provider API key', () => {
    expect(() => createChatModel({ model: 'anthropic:claude-sonnet-4-5', env: {} })).toThrow('No API key for anthropic: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN or pass --api-key');
    expect(() => createChatModel({ model: 'openai:gpt-4o', env: {} })).toThrow('No API key for openai: set OPENAI_API_KEY or pass --api-key');
    // Which is missing, for a window to say it in its own words (the CLI keeps these).
    expect(() => createChatModel({ model: 'anthropic:claude-sonnet-4-5', env: {} })).toThrow(expect.objectContaining({ missing: 'api-key', provider: 'anthropic' }));
    expect(() => createChatModel({ model: 'openai-compatible:qwen3', env: {} })).toThrow(expect.objectContaining({ missing: 'base-url' }));
    expect(createChatModel({ model: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'k' } }).id).toBe('anthropic:claude-sonnet-4-5');
    expect(createChatModel({ model: 'openai:gpt-4o', apiKey: 'k', env: {} }).provider).toBe('openai');
    expect(createChatModel({ model: 'ollama:llama3.1', env: {} }).id).toBe('ollama:llama3.1');
  });

  it('needs a base URL for openai-compatible, and a valid one', () => {
    expect(() => createChatModel({ model: 'openai-compatible:qwen3', env: {} })).toThrow(/openai-compatible provider needs a base URL \(--base-url\)/);
    expect(() => createChatModel({ model: 'openai-compatible:qwen3', baseUrl: 'localhost:8080', env: {} })).toThrow(/Invalid base URL/);
    expect(createChatModel({ model: 'openai-compatible:qwen3', baseUrl: 'http://127.0.0.1:8080/v1', env: {} }).provider).toBe('openai-compatible');
  });

  it('picks the context window: option, then known model, then the default', () => {
    expect(createChatModel({ model: 'ollama:qwen3:8b', env: {} }).contextWindow).toBe(40_960);
    expect(createChatModel({ model: 'ollama:qwen3:8b', env: {}, contextWindow: 8192 }).contextWindow).toBe(8192);
    expect(createChatModel({ model: 'ollama:my-model', env: {} }).contextWindow).toBe(200_000);
    expect(() => createChatModel({ model: 'ollama:x', env: {}, contextWindow: -1 })).toThrow(/Invalid context window/);
  });

  it('uses OLLAMA_HOST and adds /v1 to bare Ollama URLs', async () => {
    const urls: string[] = [];
    const fetch = (async (input: RequestInfo | URL) => {
      urls.push(String(input));
      return new Response('{"error":{"message":"no"}}', { status: 404, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    const run = (opts: { baseUrl?: string; env: NodeJS.ProcessEnv }) =>
      collectResponse(createChatModel({ model: 'ollama:llama3.1', fetch, ...opts }).stream({ system: '', messages: [{ role: 'user', content: 'x' }], tools: [] })).catch(
        (e: unknown) => e,
      );
    await run({ env: {} });
    await run({ env: { OLLAMA_HOST: '0.0.0.0:11500' } });
    await run({ env: {}, baseUrl: 'http://gpu-box:11434' });
    expect(urls).toEqual([
      'http://127.0.0.1:11434/v1/chat/completions',
      'http://127.0.0.1:11500/v1/chat/completions',
      'http://gpu-box:11434/v1/chat/completions',
    ]);
  });

  it('routes Responses-only OpenAI models to /responses with images inside tool output', async () => {
    const calls: Array<{ url: string; body: Record<string, unknown> }> = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      calls.push({ url: String(input), body: JSON.parse(String(init?.body)) as Record<string, unknown> });
      return new Response(JSON.stringify({ error: { message: 'bad request', type: 'invalid_request_error' } }), { status: 400, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    const png = Buffer.from('x').toString('base64');
    const err = await collectResponse(
      createChatModel({ model: 'openai:gpt-5-codex', apiKey: 'k', env: {}, fetch }).stream({
        system: 'sys',
        tools: [],
        messages: [
          { role: 'user', content: 'see' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: '/a.png' }, argsText: '{}' }] },
          { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'image', mimeType: 'image/png', data: png }] },
        ],
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(calls[0]?.url).toBe('https://api.openai.com/v1/responses');
    expect(calls[0]?.body.store).toBe(false);
    const input = calls[0]?.body.input as Array<Record<string, unknown>>;
    const output = input.find((item) => item.type === 'function_call_output');
    expect(output?.output).toEqual([{ type: 'input_image', image_url: `data:image/png;base64,${png}` }]);
  });
});
