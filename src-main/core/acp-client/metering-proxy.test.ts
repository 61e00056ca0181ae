// The metering proxy's reading of each provider's own usage (SPEC §22), in the three shapes
// the agents' model APIs answer: Anthropic Messages, OpenAI Responses, Gemini (streamed); and a
// call held by a budget shared with other threads (a candidates' set, SPEC §21) before it goes.
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, RunBudget } from '../agent/budget';
import { costAt } from '../models/model-info';
import { anthropicMessageStream, startScriptedAnthropicServer } from '../models/testing/scripted-anthropic-server';
import { startMeteringProxy, usageOfBody } from './metering-proxy';

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

describe('a call through a shared budget', () => {
  /** One POST through the proxy's socket: its status. */
  const post = (socket: string, body: unknown): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ socketPath: socket, method: 'POST', path: '/v1/messages', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });

  it('holds before it goes: a refused call never reaches the model, a passed one spends its real cost in place of its estimate', async () => {
    const model = await startScriptedAnthropicServer(Array.from({ length: 5 }, () => anthropicMessageStream([{ text: 'hi' }], 'end_turn')));
    const budget = new RunBudget({ runUsd: 0.01, label: "the candidates' set" }, 0);
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const spent: number[] = [];
    const proxy = await startMeteringProxy({
      upstream: model.url.replace(/\/v1$/, ''),
      onCall: () => undefined,
      price: (usage) => costAt(price, usage),
      hold: ({ body }) => {
        try {
          const hold = budget.reserve({ id: 'anthropic:claude-sonnet-4-5', price }, Math.ceil(body.length / 4));
          return {
            spend: (usage, costUsd) => {
              spent.push(costUsd ?? 0);
              hold.spend(usage, costUsd);
            },
            release: () => hold.release(),
          };
        } catch (err) {
          if (err instanceof BudgetExceededError) return { refused: err.message };
          throw err;
        }
      },
    });
    try {
      // A small request fits; its real cost is spent.
      expect(await post(proxy.socket, { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] })).toBe(200);
      expect(spent).toHaveLength(1);
      expect(budget.spentUsd).toBeCloseTo(spent[0]!, 9);
      // One whose estimate alone is past the budget is refused before it starts: the model never sees it.
      const big = 'x'.repeat(40_000);
      expect(await post(proxy.socket, { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: big }] })).toBe(429);
      expect(model.bodies).toHaveLength(1);
      expect(proxy.refused()).toBe(1);
    } finally {
      await proxy.close();
      await model.close();
    }
  });
});
