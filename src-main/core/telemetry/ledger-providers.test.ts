// The ledger records what each provider reported, in each provider's own usage format
// (OpenAI's and OpenAI-compatible servers' prompt_tokens_details.cached_tokens, Anthropic's
// cache_creation/cache_read input tokens, Gemini's cachedContentTokenCount and thoughts),
// read by the real SDK clients from scripted servers, and prices it by the table in code.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../agent/loop';
import { newThreadState } from '../agent/types';
import { openDatabase } from '../backends/store/store';
import { createChatModel } from '../models/create-model';
import { costOf } from '../models/model-info';
import { anthropicMessageStream, startScriptedAnthropicServer } from '../models/testing/scripted-anthropic-server';
import { startScriptedGeminiServer } from '../models/testing/scripted-gemini-server';
import { startScriptedServer } from '../models/testing/scripted-server';
import type { ChatModel } from '../models/types';
import { ReadGuard } from '../tools/read-guard';
import { createTestWorkspace } from '../tools/test-workspace.test-support';
import { UsageLedger, type ModelCallRecord } from './usage-ledger';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One turn of the real loop on `model`; the ledger's row of its one call. */
async function oneCall(model: ChatModel): Promise<ModelCallRecord> {
  const dir = mkdtempSync(join(tmpdir(), 'deepdesk-ledger-'));
  const db = openDatabase(join(dir, 'deepdesk.db'));
  const ledger = new UsageLedger(db);
  const ws = createTestWorkspace();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => void db.close(), () => ws.dispose());
  const result = await runAgent({ model, backend: ws.mounts.backend, tools: [], middleware: [], systemPrompt: 'You are a test.' }, newThreadState('t'), { role: 'user', content: 'hi' }, {
    emit: () => undefined,
    persist: async () => undefined,
    guard: new ReadGuard(),
    telemetry: ledger.telemetry(),
  });
  expect(result.reason).toBe('completed');
  const rows = ledger.calls('t');
  ledger.close();
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

const tokens = (row: ModelCallRecord) => ({ input: row.inputTokens, output: row.outputTokens, cacheRead: row.cacheReadTokens, cacheWrite: row.cacheWriteTokens });

describe('the ledger records each provider’s own numbers', () => {
  it('OpenAI (chat completions, cached prompt tokens)', async () => {
    const server = await startScriptedServer([{ text: 'hello', usage: { promptTokens: 1200, completionTokens: 34, cachedTokens: 1024 } }]);
    cleanups.push(() => server.close());
    const row = await oneCall(createChatModel({ model: 'openai:gpt-4o', baseUrl: server.url, apiKey: 'k', retry: { baseDelayMs: 1, maxDelayMs: 5 } }));
    expect(tokens(row)).toEqual({ input: 1200, output: 34, cacheRead: 1024, cacheWrite: 0 });
    expect(row).toMatchObject({ provider: 'openai', model: 'gpt-4o', failed: false });
    // gpt-4o: $2.50 input, $1.25 cached input, $10 output per million.
    expect(row.costUsd).toBeCloseTo((176 * 2.5 + 1024 * 1.25 + 34 * 10) / 1e6, 12);
  });

  it('an OpenAI-compatible server, with no known price: tokens only', async () => {
    const server = await startScriptedServer([{ text: 'hello', usage: { promptTokens: 900, completionTokens: 12, cachedTokens: 512 } }]);
    cleanups.push(() => server.close());
    const row = await oneCall(createChatModel({ model: 'openai-compatible:scripted-model', baseUrl: server.url, retry: { baseDelayMs: 1, maxDelayMs: 5 } }));
    expect(tokens(row)).toEqual({ input: 900, output: 12, cacheRead: 512, cacheWrite: 0 });
    expect(row.costUsd).toBeNull();
  });

  it('an OpenAI-compatible server with a price set in Settings', async () => {
    const server = await startScriptedServer([{ text: 'hello', usage: { promptTokens: 900, completionTokens: 12, cachedTokens: 500 } }]);
    cleanups.push(() => server.close());
    const model = createChatModel({ model: 'openai-compatible:scripted-model', baseUrl: server.url, priceOverrides: { 'openai-compatible:scripted-model': { input: 2, output: 8, cacheRead: 0.5 } }, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const row = await oneCall(model);
    expect(row.costUsd).toBeCloseTo((400 * 2 + 500 * 0.5 + 12 * 8) / 1e6, 12);
  });

  it('Anthropic (input, cache creation and cache read tokens)', async () => {
    const server = await startScriptedAnthropicServer([anthropicMessageStream([{ text: 'hello' }], 'end_turn')]);
    cleanups.push(() => server.close());
    const row = await oneCall(createChatModel({ model: 'anthropic:claude-sonnet-4-5', baseUrl: server.url, apiKey: 'k', retry: { baseDelayMs: 1, maxDelayMs: 5 } }));
    // The scripted stream reports input_tokens 12, cache_creation_input_tokens 100, cache_read_input_tokens 50, output_tokens 30.
    expect(tokens(row)).toEqual({ input: 162, output: 30, cacheRead: 50, cacheWrite: 100 });
    expect(row.costUsd).toBeCloseTo((12 * 3 + 50 * 0.3 + 100 * 3.75 + 30 * 15) / 1e6, 12);
    expect(row.costUsd).toBeCloseTo(costOf('anthropic:claude-sonnet-4-5', { inputTokens: 162, outputTokens: 30, cacheReadTokens: 50, cacheWriteTokens: 100 })!, 12);
  });

  it('Gemini (cached content and thoughts tokens)', async () => {
    const server = await startScriptedGeminiServer([
      { parts: [{ text: 'hello' }], usage: { promptTokenCount: 2000, candidatesTokenCount: 40, cachedContentTokenCount: 1500, thoughtsTokenCount: 60 } },
    ]);
    cleanups.push(() => server.close());
    const row = await oneCall(createChatModel({ model: 'google:gemini-2.5-flash', baseUrl: server.url, apiKey: 'k', retry: { baseDelayMs: 1, maxDelayMs: 5 } }));
    // Thoughts are output Gemini bills as such.
    expect(tokens(row)).toEqual({ input: 2000, output: 100, cacheRead: 1500, cacheWrite: 0 });
    // gemini-2.5-flash: $0.30 input, $0.03 cached, $2.50 output per million.
    expect(row.costUsd).toBeCloseTo((500 * 0.3 + 1500 * 0.03 + 100 * 2.5) / 1e6, 12);
  });
});
