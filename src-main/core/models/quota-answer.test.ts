// A provider's "out of quota, credit or usage limit" (SPEC §26) against a rate limit, on the
// real provider clients and scripted servers in each provider's wire format: a quota answer is
// never asked again (one request), a rate limit that lifts within a minute is.
import { APICallError } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { classifyError, ModelError, QuotaError } from './errors';
import { quotaAnswer, resetInMs } from './quota-answer';
import { quotaError, quotaLine, quotaTripped, resetQuota, tripQuota } from './quota-breaker';
import { anthropicMessageStream, startScriptedAnthropicServer, type AnthropicReply } from './testing/scripted-anthropic-server';
import { startScriptedGeminiServer, type GeminiStep } from './testing/scripted-gemini-server';
import { startScriptedServer, type ScriptStep } from './testing/scripted-server';
import type { ChatModel } from './types';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  resetQuota();
  await Promise.all(closers.splice(0).map((close) => close()));
});

const ASK = { system: '', messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };
const RETRY = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 };
const OPENAI_QUOTA = { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } };

/** The error the model's call ends with, or undefined when it answered. */
async function failureOf(model: ChatModel): Promise<unknown> {
  try {
    await collectResponse(model.stream(ASK));
    return undefined;
  } catch (err) {
    return err;
  }
}

async function openAiCompatible(steps: ScriptStep[]) {
  const server = await startScriptedServer(steps);
  closers.push(() => server.close());
  return { server, model: createChatModel({ model: 'openai-compatible:scripted-model', baseUrl: server.url, retry: RETRY }) };
}

async function anthropic(replies: AnthropicReply[]) {
  const server = await startScriptedAnthropicServer(replies);
  closers.push(() => server.close());
  const messages = () => server.bodies.length;
  return { server, messages, model: createChatModel({ model: 'anthropic:claude-sonnet-4-5', baseUrl: server.url, apiKey: 'sk-ant-test', env: {}, retry: RETRY }) };
}

async function gemini(steps: GeminiStep[]) {
  const server = await startScriptedGeminiServer(steps);
  closers.push(() => server.close());
  return { server, model: createChatModel({ model: 'google:gemini-2.5-flash', baseUrl: server.url, apiKey: 'g-test', env: {}, retry: RETRY }) };
}

const ANSWER = anthropicMessageStream([{ text: 'answered' }], 'end_turn');

describe('a quota answer on the wire is never retried', () => {
  it('OpenAI-compatible: 429 insufficient_quota is a QuotaError after one request; a 429 rate limit is retried', async () => {
    const quota = await openAiCompatible([{ error: { status: 429, body: OPENAI_QUOTA } }, { text: 'never asked' }]);
    const err = await failureOf(quota.model);
    expect(err).toBeInstanceOf(QuotaError);
    expect((err as QuotaError).status).toBe(429);
    expect((err as QuotaError).message).toMatch(/HTTP 429: You exceeded your current quota/);
    expect(quota.server.requests).toHaveLength(1);

    const limited = await openAiCompatible([{ error: { status: 429, body: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }, headers: { 'retry-after': '0' } } }, { text: 'after a wait' }]);
    expect(await failureOf(limited.model)).toBeUndefined();
    expect(limited.server.requests).toHaveLength(2);
  });

  it('HTTP 402 is a QuotaError after one request', async () => {
    const { server, model } = await openAiCompatible([{ error: { status: 402, body: { error: { message: 'Insufficient credits. Add more using https://openrouter.ai/settings/credits', code: 402 } } } }]);
    const err = await failureOf(model);
    expect(err).toBeInstanceOf(QuotaError);
    expect((err as Error).message).toContain('HTTP 402: Insufficient credits');
    expect(server.requests).toHaveLength(1);
  });

  it('a 429 whose used-up limit resets beyond a minute (x-ratelimit-reset-*) is a quota, with when it lifts', async () => {
    const headers = { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '6h0m0s', 'x-ratelimit-remaining-tokens': '5000', 'x-ratelimit-reset-tokens': '20ms' };
    const before = Date.now();
    const { server, model } = await openAiCompatible([{ error: { status: 429, body: { error: { message: 'Rate limit reached for requests per day (RPD)', type: 'requests' } }, headers } }]);
    const err = await failureOf(model);
    expect(err).toBeInstanceOf(QuotaError);
    expect((err as QuotaError).resetAt).toBeGreaterThanOrEqual(before + 6 * 3_600_000);
    expect(server.requests).toHaveLength(1);
  });

  it('Anthropic: 402 billing_error and 400 "credit balance is too low" are QuotaErrors after one request', async () => {
    const billing = await anthropic([{ status: 402, json: { type: 'error', error: { type: 'billing_error', message: 'There is an issue with your billing information.' } } }, ANSWER]);
    expect(await failureOf(billing.model)).toBeInstanceOf(QuotaError);
    expect(billing.messages()).toBe(1);

    const credit = await anthropic([
      { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.' } } },
      ANSWER,
    ]);
    const err = await failureOf(credit.model);
    expect(err).toBeInstanceOf(QuotaError);
    expect((err as Error).message).toContain('credit balance is too low');
    expect(credit.messages()).toBe(1);
  });

  it('Anthropic: a 429 whose anthropic-ratelimit reset is hours off is a quota; one within seconds is retried', async () => {
    const later = new Date(Date.now() + 5 * 3_600_000).toISOString();
    const far = await anthropic([
      { status: 429, json: { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed your rate limit.' } }, headers: { 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': later } },
      ANSWER,
    ]);
    const err = await failureOf(far.model);
    expect(err).toBeInstanceOf(QuotaError);
    expect((err as QuotaError).resetAt).toBe(Date.parse(later));
    expect(far.messages()).toBe(1);

    const soon = await anthropic([
      { status: 429, json: { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed your rate limit.' } }, headers: { 'retry-after': '0' } },
      ANSWER,
    ]);
    expect(await failureOf(soon.model)).toBeUndefined();
    expect(soon.messages()).toBe(2);
  });

  it('Gemini: "exceeded your current quota" with a retry within the minute is a rate limit (retried); without one, a quota', async () => {
    const perMinute = await gemini([{ error: { status: 429, message: 'You exceeded your current quota, please check your plan and billing details. Please retry in 0.01s.' } }, { parts: [{ text: 'ok' }] }]);
    expect(await failureOf(perMinute.model)).toBeUndefined();
    expect(perMinute.server.requests).toHaveLength(2);

    const daily = await gemini([{ error: { status: 429, message: 'You exceeded your current quota, please check your plan and billing details.' } }, { parts: [{ text: 'ok' }] }]);
    expect(await failureOf(daily.model)).toBeInstanceOf(QuotaError);
    expect(daily.server.requests).toHaveLength(1);
  });
});

describe('quotaAnswer', () => {
  const apiError = (statusCode: number, body: string, responseHeaders?: Record<string, string>) =>
    new APICallError({ message: 'x', url: 'http://x/v1', requestBodyValues: {}, statusCode, responseBody: body, ...(responseHeaders ? { responseHeaders } : {}) });

  it.each([
    [429, 'You have reached your specified API usage limits. You will regain access on 2025-12-01 at 00:00 UTC.'],
    [400, 'You have reached your specified API usage limits.'],
    [403, 'Insufficient balance'],
    [429, 'Monthly spending limit reached'],
  ])('%i "%s" is a quota', (status, message) => {
    expect(classifyError(apiError(status, JSON.stringify({ error: { message } })))).toBeInstanceOf(QuotaError);
  });

  it.each([
    [429, 'Rate limit reached for gpt-4o on tokens per min (TPM). Please try again in 2s.'],
    [429, 'Too many requests'],
    [401, 'Invalid API key'],
    [500, 'quota service unavailable'],
    [400, 'max_tokens is too large'],
  ])('%i "%s" is not', (status, message) => {
    const err = classifyError(apiError(status, JSON.stringify({ error: { message } })));
    expect(err).not.toBeInstanceOf(QuotaError);
    expect(err).toBeInstanceOf(ModelError);
  });

  it('reads a streamed error part (no HTTP status) by its type', () => {
    expect(classifyError({ type: 'error', error: { type: 'billing_error', message: 'billing' } })).toBeInstanceOf(QuotaError);
    expect(classifyError({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).not.toBeInstanceOf(QuotaError);
  });

  it('reads reset times in each provider’s form', () => {
    const now = Date.parse('2025-10-01T00:00:00Z');
    expect(resetInMs({ 'Retry-After': '120' }, '', now)).toBe(120_000);
    expect(resetInMs({ 'x-ratelimit-reset-requests': '1m30s', 'x-ratelimit-remaining-requests': '0' }, '', now)).toBe(90_000);
    expect(resetInMs({ 'x-ratelimit-reset-tokens': '6m0s', 'x-ratelimit-remaining-tokens': '10' }, '', now)).toBeUndefined();
    expect(resetInMs({ 'anthropic-ratelimit-tokens-reset': '2025-10-01T02:00:00Z', 'anthropic-ratelimit-tokens-remaining': '0' }, '', now)).toBe(7_200_000);
    expect(resetInMs({ 'anthropic-ratelimit-unified-reset': String(now / 1000 + 3600) }, '', now)).toBe(3_600_000);
    expect(resetInMs({}, '{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}', now)).toBe(37_000);
    expect(resetInMs({}, 'Please try again in 7m12s.', now)).toBe(432_000);
    expect(quotaAnswer({ status: 429, text: 'slow down', headers: { 'retry-after': '30' } }, now)).toBeUndefined();
    expect(quotaAnswer({ status: 429, text: 'slow down', headers: { 'retry-after': '3600' } }, now)).toEqual({ resetAt: now + 3_600_000 });
  });
});

describe('the quota breaker', () => {
  const openai = { id: 'openai:gpt-5', provider: 'openai' as const, endpoint: 'https://api.openai.com/v1' };

  it('refuses its provider at its endpoint only, says what the provider said, and lifts at the reset time given', () => {
    const now = Date.parse('2025-10-01T00:00:00Z');
    const trip = tripQuota(openai, new QuotaError('openai:gpt-5: HTTP 429: You exceeded your current quota', { status: 429, resetAt: now + 60_000 * 90 }), now);
    expect(quotaTripped(openai, now)).toBe(trip);
    expect(quotaTripped({ provider: 'openai', endpoint: 'https://other.example/v1' }, now)).toBeUndefined();
    expect(quotaTripped({ provider: 'anthropic', endpoint: 'https://api.openai.com/v1' }, now)).toBeUndefined();
    expect(quotaLine(trip)).toBe(
      'quota: openai (https://api.openai.com/v1) is out of quota or credit — it said "HTTP 429: You exceeded your current quota"; no new model call goes to it until it resets at 2025-10-01T01:30:00.000Z or you send a message',
    );
    expect(quotaError(trip)).toBeInstanceOf(QuotaError);
    expect(quotaTripped(openai, now + 60_000 * 90)).toBeUndefined();
  });

  it('without a reset time it holds until reset', () => {
    tripQuota(openai, new QuotaError('HTTP 402: Payment required', { status: 402 }));
    expect(quotaTripped(openai, Date.now() + 365 * 86_400_000)).toBeDefined();
    resetQuota(openai);
    expect(quotaTripped(openai)).toBeUndefined();
  });
});
