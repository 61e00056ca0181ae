// The metering proxy's reading of each provider's own usage (SPEC §22), in the three shapes
// the agents' model APIs answer: Anthropic Messages, OpenAI Responses, Gemini (streamed); a
// call held at its worst case (SPEC §26: its prompt and its max_tokens) by its thread's budget and
// one shared with other threads (a candidates' set, SPEC §21) before it goes; every call the
// provider bills counted (issue 78), whatever its encoding or ending — cut short, at the usage
// the stream had reported, or with none at its worst case — each one ledger row and one trace
// span naming the agent (the one metering point).
import Database from 'better-sqlite3';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetExceededError, type SpendNode } from '../spend/spend-tree';
import { budgetOf } from '../spend/spend-tree.test-support';
import { costAt } from '../models/model-info';
import { resetQuota } from '../models/quota-breaker';
import { listenOnLoopback } from '../models/testing/loopback';
import { anthropicMessageStream, startScriptedAnthropicServer } from '../models/testing/scripted-anthropic-server';
import type { ModelPrice, Usage } from '../models/types';
import { combineTelemetry, type Telemetry } from '../telemetry/observer';
import { otelTelemetry } from '../telemetry/otel';
import { startOtlpReceiver } from '../telemetry/otlp-receiver.test-support';
import { UsageLedger } from '../telemetry/usage-ledger';
import { startMeteringProxy, usageOfBody, type MeteringProxyOptions } from './metering-proxy';

const sse = (events: unknown[]): string => events.map((e) => `event: x\ndata: ${JSON.stringify(e)}\n\n`).join('');

describe('usage of a response', () => {
  it('Anthropic Messages: message_start input and cache, message_delta output', () => {
    const body = sse([
      { type: 'message_start', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 12, cache_creation_input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 1 } } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 30 } },
    ]);
    expect(usageOfBody(body)).toEqual({ model: 'claude-sonnet-4-5', inputTokens: 162, outputTokens: 30, cacheReadTokens: 50, cacheWriteTokens: 100 });
  });

  it('OpenAI Responses: response.completed', () => {
    const body = sse([
      { type: 'response.created', response: { model: 'gpt-5', usage: null } },
      { type: 'response.output_text.delta', delta: 'hi' },
      { type: 'response.completed', response: { model: 'gpt-5', usage: { input_tokens: 200, input_tokens_details: { cached_tokens: 80 }, output_tokens: 40 } } },
    ]);
    expect(usageOfBody(body)).toEqual({ model: 'gpt-5', inputTokens: 200, outputTokens: 40, cacheReadTokens: 80, cacheWriteTokens: 0 });
  });

  it('Gemini: the last usageMetadata, thoughts counted as output', () => {
    const body = sse([
      { candidates: [{ content: { parts: [{ text: 'a' }] } }], usageMetadata: { promptTokenCount: 10 }, modelVersion: 'gemini-2.5-pro' },
      { candidates: [{ content: { parts: [{ text: 'b' }] } }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 3, cachedContentTokenCount: 4 }, modelVersion: 'gemini-2.5-pro' },
    ]);
    expect(usageOfBody(body)).toEqual({ model: 'gemini-2.5-pro', inputTokens: 10, outputTokens: 8, cacheReadTokens: 4, cacheWriteTokens: 0 });
  });

  it('an error or a count reports none', () => {
    expect(usageOfBody('{"type":"error","error":{"message":"x"}}')).toBeUndefined();
    expect(usageOfBody('{"input_tokens": 5}')).toBeUndefined();
  });
});

/** One POST through the proxy's socket: its status (`abort`: the client closes the stream at its first bytes; 0). */
const post = (socket: string, body: unknown, abort = false): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath: socket, method: 'POST', path: '/v1/messages', headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' } }, (res) => {
      if (abort && res.statusCode === 200) {
        res.once('data', () => {
          req.destroy();
          resolve(0);
        });
        return;
      }
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err) => (abort ? resolve(0) : reject(err)));
    req.end(JSON.stringify(body));
  });

const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const STREAM = anthropicMessageStream([{ text: 'hello there' }], 'end_turn') as { sse: Array<Record<string, unknown>> };
const sseText = (events: Array<Record<string, unknown>>): string => events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
/** What one whole call of the scripted stream costs. */
const ONE_CALL = costAt(PRICE, usageOfBody(sseText(STREAM.sse))!)!;
const REQUEST = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] };
/** REQUEST's worst case: its prompt as the proxy counts it (four bytes a token) and its max_tokens. */
const WORST = costAt(PRICE, { inputTokens: Math.ceil(JSON.stringify(REQUEST).length / 4), outputTokens: 1024, cacheReadTokens: 0, cacheWriteTokens: 0 })!;
/** What the scripted stream's message_start reported (its input, one output token). */
const STARTED = costAt(PRICE, usageOfBody(sseText(STREAM.sse.slice(0, 1)))!)!;

/**
 * A provider that bills every call it answers: gzip whatever it was asked, a whole stream of
 * 100,000 tokens, or a stream it never ends (the client must cut it) after its message_start
 * (`endless`, `large-prompt`) or before any usage (`silent`).
 */
async function billingProvider(kind: 'gzip' | 'endless' | 'large-prompt' | 'silent' | 'whole-100k'): Promise<{ url: string; billed(): number; encodings: Array<string | undefined>; close(): Promise<void> }> {
  let billed = 0;
  const encodings: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      billed++;
      encodings.push((req.headers as IncomingHttpHeaders)['accept-encoding']);
      if (kind === 'gzip') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
        res.end(gzipSync(sseText(STREAM.sse)));
        return;
      }
      if (kind === 'whole-100k') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const usage = { input_tokens: 99_999, output_tokens: 1 };
        res.end(sseText([{ type: 'message_start', message: { model: 'claude-sonnet-4-5', usage } }, { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }, { type: 'message_stop' }]));
        return;
      }
      if (kind === 'silent') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sseText([{ type: 'ping' }]));
        return;
      }
      // Its input's usage at the start; the last usage event never comes before the client goes.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const start = kind === 'large-prompt' ? [{ type: 'message_start', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 100_000, output_tokens: 1 } } }] : STREAM.sse.slice(0, 3);
      res.write(sseText(start));
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return { url: origin, billed: () => billed, encodings, close: () => (server.closeAllConnections(), close()) };
}

describe('every call the provider bills is counted (issue 78)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** The proxy's calls held in a budget tree's node of `limitUsd` (refused, never paused, over it). */
  const capped = (limitUsd: number, price: ModelPrice = PRICE, node: SpendNode = budgetOf({ maxCostUsd: limitUsd })): Pick<MeteringProxyOptions, 'hold'> => ({
    hold: async ({ model, promptTokens, maxOutputTokens }) => {
      try {
        return await node.hold({ id: `anthropic:${model}`, price }, promptTokens, maxOutputTokens);
      } catch (err) {
        if (err instanceof BudgetExceededError) return { refused: err.message };
        throw err;
      }
    },
  });

  async function metered(upstream: string, options: Partial<MeteringProxyOptions> = {}) {
    const db = new Database(':memory:');
    const ledger = new UsageLedger(db);
    cleanups.push(() => void db.close());
    const run = ledger.telemetry().turn({ threadId: 't', turn: 1, agentName: 'claude-code', depth: 0, provider: 'anthropic', model: '' });
    const proxy = await startMeteringProxy({ upstream, agent: { name: 'claude-code', provider: 'anthropic' }, observer: () => run, price: (usage) => costAt(PRICE, usage), ...options });
    cleanups.push(() => proxy.close());
    return { proxy, rows: () => ledger.calls('t') };
  }

  it('an answer compressed though identity was asked: decoded and counted; under a budget of one worst case and 2 calls the provider bills 3, each a ledger row', async () => {
    const provider = await billingProvider('gzip');
    cleanups.push(() => provider.close());
    // A call goes while what is spent and its worst case fit: after 3 calls, a 4th's worst case would not.
    const { proxy, rows } = await metered(provider.url, capped(WORST + 2 * ONE_CALL));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await post(proxy.socket, REQUEST));
    expect(provider.billed()).toBe(3);
    expect(provider.encodings.every((e) => e === 'identity')).toBe(true);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6 - provider.billed());
    const calls = rows();
    expect(calls).toHaveLength(provider.billed());
    expect(calls.map((r) => [r.provider, r.purpose, r.inputTokens, r.outputTokens, r.failed])).toEqual(calls.map(() => ['claude-code', 'other-agent', 162, 30, false]));
    expect(calls.reduce((sum, r) => sum + r.costUsd!, 0)).toBeCloseTo(provider.billed() * ONE_CALL, 12);
  });

  // SPEC §26 changed this rule: a call cut after message_start settled at the input it reported
  // and its max_tokens; it now settles at the usage the stream had reported.
  it('a stream the client cuts after message_start reported its usage settles at that usage, each a ledger row', async () => {
    const provider = await billingProvider('endless');
    cleanups.push(() => provider.close());
    const { proxy, rows } = await metered(provider.url, capped(WORST + 2 * STARTED));
    for (let i = 0; i < 6; i++) await post(proxy.socket, REQUEST, true);
    // The cut calls end in the proxy as the client goes.
    await expect.poll(() => rows()).toHaveLength(provider.billed());
    expect(provider.billed()).toBe(3);
    for (const row of rows()) {
      expect(row).toMatchObject({ provider: 'claude-code', purpose: 'other-agent', failed: true, inputTokens: 162, outputTokens: 1, cacheReadTokens: 50, cacheWriteTokens: 100 });
      expect(row.error).toContain('counted at the usage it had reported');
      expect(row.costUsd).toBeCloseTo(STARTED, 12);
    }
  });

  it('a stream cut before it reported any usage keeps its worst case: its prompt and its max_tokens, never a guess from what it answered', async () => {
    const provider = await billingProvider('silent');
    cleanups.push(() => provider.close());
    const { proxy, rows } = await metered(provider.url, capped(2.5 * WORST));
    for (let i = 0; i < 6; i++) await post(proxy.socket, REQUEST, true);
    await expect.poll(() => rows()).toHaveLength(provider.billed());
    // Two worst cases fit under the budget; a third would not, and is never sent.
    expect(provider.billed()).toBe(2);
    expect(proxy.refused()).toBe(4);
    for (const row of rows()) {
      expect(row).toMatchObject({ failed: true, inputTokens: 0, outputTokens: 0 });
      expect(row.error).toContain('counted at its worst case');
      expect(row.costUsd).toBeCloseTo(WORST, 12);
    }
  });

  it('6 calls billing 100,000 tokens each, sent at once under $0.50 (the thread’s or a shared budget): never all served, one at a time, at most one call past the cap', async () => {
    const dollar = { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 };
    const price = (usage: Usage) => costAt(dollar, usage);
    for (const which of ['thread', 'shared'] as const) {
      const provider = await billingProvider('whole-100k');
      cleanups.push(() => provider.close());
      let inFlight = 0;
      let most = 0;
      const set = budgetOf({ maxCostUsd: 0.5 }, 0, "the candidates' set's budget");
      const held = capped(0.5, dollar, which === 'thread' ? budgetOf({ maxCostUsd: 0.5 }) : set.child({ kind: 'thread', id: 'c1', label: "the thread's budget" })).hold!;
      const budget: Partial<MeteringProxyOptions> = {
        hold: async (call, signal) => {
          const hold = await held(call, signal);
          if ('refused' in hold) return hold;
          most = Math.max(most, ++inFlight);
          const ended = () => void inFlight--;
          return { spend: (u, c) => (ended(), hold.spend(u, c)), release: () => (ended(), hold.release()), keep: () => (ended(), hold.keep()) };
        },
      };
      const { proxy, rows } = await metered(provider.url, { price, ...budget });
      const statuses = await Promise.all(Array.from({ length: 6 }, () => post(proxy.socket, REQUEST)));
      expect(provider.billed()).toBeLessThan(6);
      expect(statuses.filter((s) => s === 200)).toHaveLength(provider.billed());
      const spent = rows().reduce((sum, r) => sum + r.costUsd!, 0);
      expect(spent).toBeLessThanOrEqual(0.5 + 0.1 + 1e-9);
      expect(most).toBe(1);
      if (which === 'shared') expect(set.spentUsd).toBeCloseTo(spent, 9);
    }
  });

  it('a stream cut after message_start reported a large prompt settles at that prompt, not at a guess from the request: under $0.50 at most one call past the cap', async () => {
    const provider = await billingProvider('large-prompt');
    cleanups.push(() => provider.close());
    const { proxy, rows } = await metered(provider.url, capped(0.5));
    for (let i = 0; i < 6; i++) await post(proxy.socket, REQUEST, true);
    await expect.poll(() => rows()).toHaveLength(provider.billed());
    // Each call bills $0.30 of input: two reach the cap, the rest are refused before they go.
    expect(provider.billed()).toBe(2);
    expect(rows().map((r) => r.inputTokens)).toEqual([100_000, 100_000]);
    expect(rows().reduce((sum, r) => sum + r.costUsd!, 0)).toBeGreaterThanOrEqual(0.6);
  });

  it('a call of another agent is one ledger row and one chat span naming the agent, under its turn', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const model = await startScriptedAnthropicServer([anthropicMessageStream([{ text: 'hi' }], 'end_turn')]);
    cleanups.push(() => model.close());
    const db = new Database(':memory:');
    cleanups.push(() => void db.close());
    const ledger = new UsageLedger(db);
    const otel = otelTelemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, serviceVersion: 'test' })!;
    cleanups.push(() => otel.shutdown?.());
    const telemetry: Telemetry = combineTelemetry([ledger.telemetry(), otel])!;
    const run = telemetry.turn({ threadId: 't', turn: 1, agentName: 'claude-code', depth: 0, provider: 'anthropic', model: '' });
    const proxy = await startMeteringProxy({ upstream: model.url.replace(/\/v1$/, ''), agent: { name: 'claude-code', provider: 'anthropic' }, observer: () => run, price: (usage) => costAt(PRICE, usage) });
    cleanups.push(() => proxy.close());
    expect(await post(proxy.socket, REQUEST)).toBe(200);
    run.end({ reason: 'completed', text: '' });
    await otel.flush?.();
    await expect.poll(() => receiver.spans().length).toBeGreaterThanOrEqual(2);
    const rows = ledger.calls('t');
    // The model that answered (the provider's name for it), as the row and the span's response model say.
    expect(rows.map((r) => [r.provider, r.purpose, r.model, r.inputTokens, r.outputTokens])).toEqual([['claude-code', 'other-agent', 'claude-sonnet-4-5-20250929', 162, 30]]);
    const chats = receiver.spans().filter((s) => s.name === 'chat claude-sonnet-4-5');
    expect(chats).toHaveLength(1);
    expect(chats[0]!.attributes).toMatchObject({ 'gen_ai.agent.name': 'claude-code', 'gen_ai.provider.name': 'anthropic', 'deepdesk.purpose': 'other-agent', 'gen_ai.usage.input_tokens': 162, 'gen_ai.usage.output_tokens': 30, 'gen_ai.response.model': 'claude-sonnet-4-5-20250929' });
    const turn = receiver.spans().find((s) => s.name === 'invoke_agent claude-code')!;
    expect(chats[0]!.parentSpanId).toBe(turn.spanId);
  });
});

describe('a call through a shared budget', () => {
  it('holds before it goes: a refused call never reaches the model, a passed one spends its real cost in place of its estimate', async () => {
    const model = await startScriptedAnthropicServer(Array.from({ length: 5 }, () => anthropicMessageStream([{ text: 'hi' }], 'end_turn')));
    const budget = budgetOf({ maxCostUsd: 0.01 }, 0, "the candidates' set's budget");
    const spent: number[] = [];
    const proxy = await startMeteringProxy({
      upstream: model.url.replace(/\/v1$/, ''),
      agent: { name: 'claude-code', provider: 'anthropic' },
      price: (usage) => costAt(PRICE, usage),
      hold: async ({ promptTokens, maxOutputTokens }) => {
        try {
          const hold = await budget.hold({ id: 'anthropic:claude-sonnet-4-5', price: PRICE }, promptTokens, maxOutputTokens);
          return { ...hold, spend: (usage, costUsd) => (spent.push(costUsd ?? 0), hold.spend(usage, costUsd)) };
        } catch (err) {
          if (err instanceof BudgetExceededError) return { refused: err.message };
          throw err;
        }
      },
    });
    try {
      // A small request without max_tokens is held at the model's most (32,000 tokens: $0.48): refused.
      expect(await post(proxy.socket, { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] })).toBe(429);
      // With max_tokens 100 it fits; its real cost is spent.
      expect(await post(proxy.socket, { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })).toBe(200);
      expect(spent).toHaveLength(1);
      expect(budget.spentUsd).toBeCloseTo(spent[0]!, 9);
      // One whose prompt alone is past the budget is refused before it starts: the model never sees it.
      const big = 'x'.repeat(40_000);
      expect(await post(proxy.socket, { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: big }] })).toBe(429);
      expect(model.bodies).toHaveLength(1);
      expect(proxy.refused()).toBe(2);
    } finally {
      await proxy.close();
      await model.close();
    }
  });
});

describe('a quota answer through the proxy (SPEC §26)', () => {
  afterEach(() => resetQuota());

  it('trips the provider’s breaker: the agent is told, and no later call reaches the provider (another proxy’s neither)', async () => {
    let asked = 0;
    const server = createServer((req, res) => {
      req.resume();
      asked++;
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' } }));
    });
    const { origin, close } = await listenOnLoopback(server);
    let told = 0;
    const start = () => startMeteringProxy({ upstream: origin, agent: { name: 'claude-code', provider: 'anthropic' }, price: (usage) => costAt(PRICE, usage), onQuota: () => told++ });
    const [first, second] = [await start(), await start()];
    try {
      expect(await post(first.socket, REQUEST)).toBe(429);
      await expect.poll(() => told).toBeGreaterThan(0);
      expect(await post(first.socket, REQUEST)).toBe(402);
      expect(await post(second.socket, REQUEST)).toBe(402);
      expect(asked).toBe(1);
    } finally {
      await first.close();
      await second.close();
      await close();
    }
  });

  it('a rate limit that lifts within a minute trips nothing', async () => {
    let asked = 0;
    const server = createServer((req, res) => {
      req.resume();
      asked++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit.' } }));
    });
    const { origin, close } = await listenOnLoopback(server);
    const proxy = await startMeteringProxy({ upstream: origin, agent: { name: 'claude-code', provider: 'anthropic' } });
    try {
      expect(await post(proxy.socket, REQUEST)).toBe(429);
      expect(await post(proxy.socket, REQUEST)).toBe(429);
      expect(asked).toBe(2);
    } finally {
      await proxy.close();
      await close();
    }
  });
});
