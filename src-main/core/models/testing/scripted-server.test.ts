import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, startScriptedServer } from './scripted-server';
import type { ScriptedServer } from './scripted-server';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(...args: Parameters<typeof startScriptedServer>) {
  const server = await startScriptedServer(...args);
  servers.push(server);
  return server;
}

function post(url: string, body: unknown) {
  return fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function sseData(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

const userMessage = (content: string) => ({ model: 'm', messages: [{ role: 'user', content }] });

describe('scripted OpenAI-compatible server', () => {
  it('streams real chat.completion.chunk frames with split deltas, tool calls, usage and [DONE]', async () => {
    const server = await start([{ text: 'Hello world', toolCalls: [{ id: 'call_1', name: 'ls', args: { path: '/' } }], usage: { promptTokens: 5, completionTokens: 3 } }]);
    const response = await post(server.url, { ...userMessage('hi'), stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const data = await sseData(response);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as { object: string; choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>; usage?: unknown });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const content = chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content).filter((x) => typeof x === 'string' && x !== ''));
    expect(content.length).toBeGreaterThan(1);
    expect(content.join('')).toBe('Hello world');
    const toolDeltas = chunks.flatMap((c) => c.choices.flatMap((choice) => (choice.delta.tool_calls as Array<Record<string, unknown>>) ?? []));
    expect(toolDeltas[0]).toEqual({ index: 0, id: 'call_1', type: 'function', function: { name: 'ls', arguments: '' } });
    expect(toolDeltas.length).toBeGreaterThan(2);
    expect(toolDeltas.map((d) => (d.function as { arguments: string }).arguments).join('')).toBe('{"path":"/"}');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
  });

  it('paces text deltas when the step has a pace', async () => {
    const text = 'abcdefghij'.repeat(4);
    const server = await start([{ text, pace: { chunkChars: 2, chunksPerSecond: 200 } }]);
    const started = performance.now();
    const data = await sseData(await post(server.url, { ...userMessage('hi'), stream: true }));
    const elapsed = performance.now() - started;
    const content = data
      .filter((d) => d !== '[DONE]')
      .flatMap((d) => (JSON.parse(d) as { choices: Array<{ delta: { content?: string } }> }).choices.map((c) => c.delta.content ?? ''))
      .filter((piece) => piece !== '');
    expect(content).toHaveLength(20);
    expect(content.join('')).toBe(text);
    // 20 chunks at 200 a second: the last is due 95 ms after the first.
    expect(elapsed).toBeGreaterThanOrEqual(90);
  });

  it('sends no usage chunk unless asked', async () => {
    const server = await start([{ text: 'x' }]);
    const data = await sseData(await post(server.url, { ...userMessage('hi'), stream: true }));
    expect(data.some((d) => d !== '[DONE]' && 'usage' in (JSON.parse(d) as object))).toBe(false);
  });

  it('answers non-stream requests with a chat.completion', async () => {
    const server = await start([{ toolCalls: [{ name: 'ls', args: '{broken' }] }]);
    const json = (await (await post(server.url, userMessage('hi'))).json()) as Record<string, unknown>;
    expect(json).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'ls', arguments: '{broken' } }] }, finish_reason: 'tool_calls' }],
    });
  });

  it('runs function and delayed steps, errors, and fails loudly when the script is exhausted', async () => {
    const server = await start([(req) => ({ text: `echo ${lastUserText(req)}` }), { delayMs: 5, then: { error: { status: 429, headers: { 'retry-after': '0' } } } }]);
    const echoed = (await (await post(server.url, userMessage('ping'))).json()) as { choices: Array<{ message: { content: string } }> };
    expect(echoed.choices[0]?.message.content).toBe('echo ping');
    const limited = await post(server.url, userMessage('x'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('0');
    const exhausted = await post(server.url, userMessage('x'));
    expect(exhausted.status).toBe(500);
    expect(await exhausted.text()).toContain('script exhausted');
    expect(server.requests.map((r) => lastUserText(r))).toEqual(['ping', 'x', 'x']);
  });

  it('lists a model and closes even with a hanging stream open', async () => {
    const server = await start([{ hang: true, text: 'wait' }], { model: 'tiny' });
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['tiny']);
    const response = await post(server.url, { ...userMessage('x'), stream: true });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"role":"assistant"');
    servers.splice(0);
    await server.close();
    await expect((async () => { while (!(await reader.read()).done); })()).rejects.toThrow();
  });
});
