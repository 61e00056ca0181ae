import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_WINDOW, contextWindowFor, costOf, priceFor, resolvePrice } from './model-info';

describe('contextWindowFor', () => {
  it.each([
    ['anthropic', 'claude-sonnet-4-5-20250929', 200_000],
    ['anthropic', 'claude-opus-4-1', 200_000],
    ['anthropic', 'claude-3-5-haiku-latest', 200_000],
    ['anthropic', 'claude-sonnet-4-5[1m]', 1_000_000],
    ['openai', 'gpt-4o-2024-08-06', 128_000],
    ['openai', 'gpt-4o-mini', 128_000],
    ['openai', 'gpt-4.1-mini', 1_047_576],
    ['openai', 'o4-mini', 200_000],
    ['openai', 'o3', 200_000],
    ['openai', 'gpt-5', 272_000],
    ['google', 'gemini-2.5-flash', 1_048_576],
    ['google', 'gemini-2.5-pro', 1_048_576],
    ['google', 'gemini-3-pro-preview', 1_048_576],
    ['google', 'gemini-2.0-flash-lite', 1_048_576],
    ['google', 'models/gemini-flash-latest', 1_048_576],
    ['google', 'gemini-1.5-pro-002', 2_097_152],
    ['openai', 'gpt-5-chat-latest', 128_000],
    ['ollama', 'llama3.1:8b', 131_072],
    ['ollama', 'llama3:8b', 8_192],
    ['openai-compatible', 'meta-llama/Llama-3.3-70B-Instruct', 131_072],
    ['ollama', 'qwen3:8b', 40_960],
    ['ollama', 'qwen3-coder:30b', 262_144],
    ['openai-compatible', 'Qwen/Qwen2.5-Coder-32B-Instruct', 32_768],
    ['ollama', 'mistral:7b', 32_768],
    ['ollama', 'mistral-nemo', 131_072],
    ['ollama', 'gemma3:12b', 131_072],
    ['ollama', 'gemma3:1b', 32_768],
    ['ollama', 'gemma2:9b', 8_192],
    ['openai-compatible', 'deepseek-chat', 131_072],
    ['ollama', 'deepseek-r1:14b', 131_072],
    ['ollama', 'gpt-oss:20b', 131_072],
  ] as const)('%s:%s → %d', (provider, model, tokens) => {
    expect(contextWindowFor(provider, model)).toBe(tokens);
  });

  it('returns undefined for unknown models', () => {
    expect(contextWindowFor('openai-compatible', 'my-finetune')).toBeUndefined();
    expect(DEFAULT_CONTEXT_WINDOW * 0.85).toBe(170_000);
  });
});

describe('costOf', () => {
  it('prices input, output and Anthropic cache reads/writes', () => {
    // 1M uncached input at $3, 1M cache write at $3.75, 1M cache read at $0.30, 1M output at $15
    const usage = { inputTokens: 3_000_000, outputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 };
    expect(costOf('anthropic:claude-sonnet-4-5-20250929', usage)).toBeCloseTo(3 + 3.75 + 0.3 + 15, 6);
  });

  it('prices OpenAI cached input', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 500_000, cacheWriteTokens: 0 };
    expect(costOf('openai:gpt-4o', usage)).toBeCloseTo(0.5 * 2.5 + 0.5 * 1.25, 6);
    expect(priceFor('openai:gpt-4o-mini')?.input).toBe(0.15);
    expect(priceFor('openai:gpt-5-mini')?.output).toBe(2);
  });

  it("prices the models Codex offers, its default gpt-5.5 first (a mini or nano apart from its family's)", () => {
    expect(priceFor('openai:gpt-5.5')).toMatchObject({ input: 5, cacheRead: 0.5, output: 30 });
    expect(priceFor('openai:gpt-5.4')?.output).toBe(15);
    expect(priceFor('openai:gpt-5.4-mini')?.output).toBe(4.5);
    expect(priceFor('openai:gpt-5.4-nano')?.output).toBe(1.25);
    expect(priceFor('openai:gpt-5.3-codex')?.output).toBe(14);
    expect(priceFor('openai:gpt-5.2')?.output).toBe(14);
    expect(priceFor('openai:gpt-5.1-codex-max')?.output).toBe(10);
    expect(priceFor('openai:gpt-5.1-codex-mini')?.output).toBe(2);
    expect(priceFor('openai:gpt-5.5-pro')).toBeUndefined();
  });

  it('prices Gemini models, Flash-Lite apart from Flash', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(costOf('google:gemini-2.5-pro', usage)).toBeCloseTo(1.25 + 10, 6);
    expect(costOf('google:gemini-2.5-flash', usage)).toBeCloseTo(0.3 + 2.5, 6);
    expect(costOf('google:gemini-2.5-flash-lite', usage)).toBeCloseTo(0.1 + 0.4, 6);
    expect(priceFor('google:gemini-3-pro-preview')?.input).toBe(2);
    expect(priceFor('google:gemma-3-27b-it')).toBeUndefined();
  });

  it('is nothing for a model Ollama runs on this machine, and undefined for unknown models', () => {
    const usage = { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(costOf('ollama:qwen3:8b', usage)).toBe(0);
    expect(costOf('openai-compatible:gpt-4o', usage)).toBeUndefined();
    expect(costOf('openai:some-new-model', usage)).toBeUndefined();
    expect(costOf('nonsense', usage)).toBeUndefined();
  });

  it('takes the person’s price for a model over the table’s, cache prices defaulting to the input price', () => {
    expect(resolvePrice('openai-compatible:qwen3', { 'openai-compatible:qwen3': { input: 1, output: 2 } })).toEqual({ input: 1, output: 2, cacheRead: 1, cacheWrite: 1 });
    expect(resolvePrice('anthropic:claude-sonnet-4-5', { 'anthropic:claude-sonnet-4-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 } })).toEqual({ input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 });
    expect(resolvePrice('anthropic:claude-sonnet-4-5', {})?.input).toBe(3);
    expect(resolvePrice('openai-compatible:qwen3')).toBeNull();
  });
});

