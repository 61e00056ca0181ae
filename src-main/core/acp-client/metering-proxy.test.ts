// The metering proxy's reading of each provider's own usage (SPEC §22), in the three shapes
// the agents' model APIs answer: Anthropic Messages, OpenAI Responses, Gemini (streamed).
import { describe, expect, it } from 'vitest';
import { usageOfBody } from './metering-proxy';

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
