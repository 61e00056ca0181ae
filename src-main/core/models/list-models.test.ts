import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listModels } from './list-models';
import { startScriptedServer } from './testing/scripted-server';
import { startScriptedAnthropicServer } from './testing/scripted-anthropic-server';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A one-route JSON server on loopback that records what it was asked. */
async function jsonServer(routes: Record<string, unknown>, seen: IncomingMessage[] = []): Promise<string> {
  const server = createServer((req, res) => {
    seen.push(req);
    const body = routes[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('listModels', () => {
  it('reads an OpenAI-compatible server\'s /models', async () => {
    const scripted = await startScriptedServer([]);
    try {
      expect(await listModels({ provider: 'openai-compatible', baseUrl: scripted.url, env: {} })).toEqual(['scripted-model']);
    } finally {
      await scripted.close();
    }
  });

  it('asks Anthropic with its key and version headers', async () => {
    const seen: IncomingMessage[] = [];
    const base = await jsonServer({ '/v1/models?limit=1000': { data: [{ id: 'claude-sonnet-4-5' }, { id: 'claude-haiku-4-5' }] } }, seen);
    expect(await listModels({ provider: 'anthropic', baseUrl: `${base}/v1`, apiKey: 'k-1', env: {} })).toEqual(['claude-haiku-4-5', 'claude-sonnet-4-5']);
    expect(seen[0]!.headers['x-api-key']).toBe('k-1');
    expect(seen[0]!.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('lists Anthropic models with ANTHROPIC_AUTH_TOKEN alone, sent as a bearer token (as runs send it)', async () => {
    const anthropic = await startScriptedAnthropicServer();
    try {
      expect(await listModels({ provider: 'anthropic', env: { ANTHROPIC_AUTH_TOKEN: 'tok-only', ANTHROPIC_BASE_URL: anthropic.url } })).toEqual(['claude-scripted']);
      expect(anthropic.headers[0]!.authorization).toBe('Bearer tok-only');
      expect(anthropic.headers[0]!['x-api-key']).toBeUndefined();
      // The key wins over the token, as in createChatModel.
      await listModels({ provider: 'anthropic', env: { ANTHROPIC_API_KEY: 'key-first', ANTHROPIC_AUTH_TOKEN: 'tok-only', ANTHROPIC_BASE_URL: anthropic.url } });
      expect(anthropic.headers[1]!['x-api-key']).toBe('key-first');
    } finally {
      await anthropic.close();
    }
  });

  it('lists Gemini chat models with the key from GEMINI_API_KEY, without the models/ prefix', async () => {
    const seen: IncomingMessage[] = [];
    const models = {
      models: [
        { name: 'models/gemini-2.5-flash', supportedGenerationMethods: ['generateContent', 'countTokens'] },
        { name: 'models/text-embedding-004', supportedGenerationMethods: ['embedContent'] },
        { name: 'models/gemini-2.5-pro', supportedGenerationMethods: ['generateContent'] },
      ],
    };
    const base = await jsonServer({ '/v1beta/models?pageSize=1000': models }, seen);
    expect(await listModels({ provider: 'google', baseUrl: `${base}/v1beta`, env: { GEMINI_API_KEY: 'gem-1' } })).toEqual(['gemini-2.5-flash', 'gemini-2.5-pro']);
    expect(seen[0]!.headers['x-goog-api-key']).toBe('gem-1');
    await expect(listModels({ provider: 'google', env: {} })).rejects.toThrow(/No API key for google/);
  });

  it('reads Ollama\'s tags, and its OpenAI-style list when tags are missing', async () => {
    const withTags = await jsonServer({ '/api/tags': { models: [{ name: 'qwen3:8b' }, { name: 'llama3.1:8b' }] } });
    expect(await listModels({ provider: 'ollama', baseUrl: withTags, env: {} })).toEqual(['llama3.1:8b', 'qwen3:8b']);
    const openaiStyle = await jsonServer({ '/v1/models': { data: [{ id: 'gemma3' }] } });
    expect(await listModels({ provider: 'ollama', baseUrl: `${openaiStyle}/v1`, env: {} })).toEqual(['gemma3']);
  });

  it('says what is missing or what went wrong', async () => {
    await expect(listModels({ provider: 'openai', env: {} })).rejects.toThrow(/No API key for openai/);
    await expect(listModels({ provider: 'openai-compatible', env: {} })).rejects.toThrow(/base URL/);
    const base = await jsonServer({});
    await expect(listModels({ provider: 'openai-compatible', baseUrl: `${base}/v1`, env: {} })).rejects.toThrow(/answered 404/);
    await expect(listModels({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', env: {} })).rejects.toThrow(/Could not reach/);
  });
});
