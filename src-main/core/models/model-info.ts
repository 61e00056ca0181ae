import type { ChatModel, ModelPrice, ProviderName, Usage } from './types';

/** Used when a model's window is unknown; 85% of it is the SPEC's 170,000-token summarization point. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

interface WindowRule {
  match: RegExp;
  tokens: number;
}

// First match wins, so specific names come before their families. Names are matched after
// normalization (lower case, last path segment: 'Qwen/Qwen2.5-7B-Instruct' → 'qwen2.5-7b-instruct').
const WINDOW_RULES: WindowRule[] = [
  // Anthropic
  { match: /^claude-.*[-[]1m\b/, tokens: 1_000_000 },
  { match: /^claude-/, tokens: 200_000 },
  // OpenAI (gpt-5 family: 400k total of which at most 272k input; the input limit is what matters here)
  { match: /^gpt-5(\.\d+)?-chat/, tokens: 128_000 },
  { match: /^gpt-5/, tokens: 272_000 },
  { match: /^gpt-4\.1/, tokens: 1_047_576 },
  { match: /^gpt-4o/, tokens: 128_000 },
  { match: /^gpt-4-turbo|^gpt-4-\d{4}-preview/, tokens: 128_000 },
  { match: /^gpt-4-32k/, tokens: 32_768 },
  { match: /^gpt-4(-\d{4})?$/, tokens: 8_192 },
  { match: /^gpt-3\.5-turbo/, tokens: 16_385 },
  { match: /^o1-(mini|preview)/, tokens: 128_000 },
  { match: /^o[134](-|$)/, tokens: 200_000 },
  { match: /^gpt-oss/, tokens: 131_072 },
  // Google Gemini (input window; 2.5 and 3 take 1,048,576 tokens, the 2.0 and 1.5 Flash families too)
  { match: /^gemini-1\.5-pro/, tokens: 2_097_152 },
  { match: /^gemini-(3|2\.5|2\.0|1\.5)(-|$)|^gemini-(flash|pro)(-lite)?-latest/, tokens: 1_048_576 },
  // Meta Llama
  { match: /llama-?4(?!\d)/, tokens: 1_048_576 },
  { match: /llama-?3\.[123]/, tokens: 131_072 },
  { match: /llama-?3(?!\d)/, tokens: 8_192 },
  { match: /llama-?2(?!\d)/, tokens: 4_096 },
  // Qwen
  { match: /qwen3-coder|qwen3-.*2507|qwen3-next/, tokens: 262_144 },
  { match: /qwen3/, tokens: 40_960 },
  { match: /qwq/, tokens: 40_960 },
  { match: /qwen2\.5-(\d+b-)?instruct-1m/, tokens: 1_010_000 },
  { match: /qwen2\.5|qwen2/, tokens: 32_768 },
  // Mistral
  { match: /codestral/, tokens: 256_000 },
  { match: /devstral|mistral-large|mistral-nemo|ministral|mistral-medium|magistral|pixtral/, tokens: 131_072 },
  { match: /mistral-small-?3\.[12]|mistral-small-?2[56]/, tokens: 131_072 },
  { match: /mistral|mixtral/, tokens: 32_768 },
  // Google Gemma
  { match: /gemma-?3n/, tokens: 32_768 },
  { match: /gemma-?3-?1b|gemma3:1b/, tokens: 32_768 },
  { match: /gemma-?3/, tokens: 131_072 },
  { match: /gemma/, tokens: 8_192 },
  // DeepSeek
  { match: /deepseek-coder-v2/, tokens: 163_840 },
  { match: /deepseek-coder/, tokens: 16_384 },
  { match: /deepseek/, tokens: 131_072 },
  // Others seen often behind OpenAI-compatible servers
  { match: /phi-?4/, tokens: 16_384 },
  { match: /phi-?3/, tokens: 131_072 },
  { match: /granite-?3/, tokens: 131_072 },
];

export function normalizeModelName(model: string): string {
  const lower = model.trim().toLowerCase();
  const lastSegment = lower.split('/').pop() ?? lower;
  return lastSegment;
}

/** The model's context window in tokens, or undefined when unknown (use DEFAULT_CONTEXT_WINDOW). */
export function contextWindowFor(provider: ProviderName, model: string): number | undefined {
  void provider; // the same model family has the same window behind any provider
  const name = normalizeModelName(model);
  return WINDOW_RULES.find((rule) => rule.match.test(name))?.tokens;
}

export type { ModelPrice };

/**
 * The most a call may answer when its request sets no max_tokens, for a model not in the table
 * below (self-hosted and unknown models; 4,096 is many OpenAI-compatible servers' own default):
 * the budget's worst case of such a call (SPEC §26) assumes this many output tokens.
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;

// The most each family answers when a request sets no max_tokens. Anthropic's requests always
// carry one (create-model.ts sends 32,000), so those models' entry is what Deepdesk asks for.
const MAX_OUTPUT_RULES: WindowRule[] = [
  { match: /^claude-/, tokens: 32_000 },
  { match: /^gpt-5(\.\d+)?-chat/, tokens: 16_384 },
  { match: /^gpt-5/, tokens: 128_000 },
  { match: /^gpt-4\.1/, tokens: 32_768 },
  { match: /^gpt-4o/, tokens: 16_384 },
  { match: /^o[134](-|$)/, tokens: 100_000 },
  { match: /^gemini-(3|2\.5)(-|$)/, tokens: 65_536 },
  { match: /^gemini-/, tokens: 8_192 },
];

/** The most 'provider:model' answers when a request sets no max_tokens: the table's, else DEFAULT_MAX_OUTPUT_TOKENS. */
export function maxOutputTokensFor(modelId: string): number {
  const name = normalizeModelName(modelId.slice(modelId.indexOf(':') + 1));
  return MAX_OUTPUT_RULES.find((rule) => rule.match.test(name))?.tokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
}


interface PriceRule {
  provider: ProviderName;
  match: RegExp;
  price: ModelPrice;
}

// Anthropic: cache writes (5-minute TTL) cost 1.25x input, cache reads 0.1x input.
const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead: input * 0.1,
});
// OpenAI: cached input is discounted, cache writes cost nothing extra. Google: cached input
// (implicit caching) costs a tenth or a quarter of input; no write charge here.
const openai = (input: number, cachedInput: number, output: number): ModelPrice => ({
  input,
  output,
  cacheRead: cachedInput,
  cacheWrite: input,
});
const google = openai;

// List prices of common paid models; unknown, self-hosted and local models have no price.
const PRICE_RULES: PriceRule[] = [
  { provider: 'anthropic', match: /^claude-opus-4-[5-9]/, price: anthropic(5, 25) },
  { provider: 'anthropic', match: /^claude-(opus-4|3-opus)/, price: anthropic(15, 75) },
  { provider: 'anthropic', match: /^claude-(sonnet-4|3-7-sonnet|3-5-sonnet)/, price: anthropic(3, 15) },
  { provider: 'anthropic', match: /^claude-haiku-4/, price: anthropic(1, 5) },
  { provider: 'anthropic', match: /^claude-3-5-haiku/, price: anthropic(0.8, 4) },
  { provider: 'anthropic', match: /^claude-3-haiku/, price: anthropic(0.25, 1.25) },
  // Gemini list prices at up to 200k prompt tokens (longer prompts cost more on the Pro models).
  { provider: 'google', match: /^gemini-3-pro/, price: google(2, 0.2, 12) },
  { provider: 'google', match: /^gemini-3-flash/, price: google(0.5, 0.05, 3) },
  { provider: 'google', match: /^gemini-2\.5-pro/, price: google(1.25, 0.125, 10) },
  { provider: 'google', match: /^gemini-2\.5-flash-lite/, price: google(0.1, 0.01, 0.4) },
  { provider: 'google', match: /^gemini-2\.5-flash/, price: google(0.3, 0.03, 2.5) },
  { provider: 'google', match: /^gemini-2\.0-flash-lite/, price: google(0.075, 0.075, 0.3) },
  { provider: 'google', match: /^gemini-2\.0-flash/, price: google(0.1, 0.025, 0.4) },
  { provider: 'openai', match: /^gpt-5\.5(-\d{4}-\d{2}-\d{2})?$/, price: openai(5, 0.5, 30) },
  { provider: 'openai', match: /^gpt-5\.4-mini/, price: openai(0.75, 0.075, 4.5) },
  { provider: 'openai', match: /^gpt-5\.4-nano/, price: openai(0.2, 0.02, 1.25) },
  { provider: 'openai', match: /^gpt-5\.4(-\d{4}-\d{2}-\d{2})?$/, price: openai(2.5, 0.25, 15) },
  { provider: 'openai', match: /^gpt-5\.[23](-codex)?(-\d{4}-\d{2}-\d{2})?$/, price: openai(1.75, 0.175, 14) },
  { provider: 'openai', match: /^gpt-5(\.1)?(-codex)?-mini/, price: openai(0.25, 0.025, 2) },
  { provider: 'openai', match: /^gpt-5(\.1)?-nano/, price: openai(0.05, 0.005, 0.4) },
  { provider: 'openai', match: /^gpt-5(\.1)?(-codex|-codex-max|-chat-latest)?(-\d{4}-\d{2}-\d{2})?$/, price: openai(1.25, 0.125, 10) },
  { provider: 'openai', match: /^gpt-4\.1-mini/, price: openai(0.4, 0.1, 1.6) },
  { provider: 'openai', match: /^gpt-4\.1-nano/, price: openai(0.1, 0.025, 0.4) },
  { provider: 'openai', match: /^gpt-4\.1/, price: openai(2, 0.5, 8) },
  { provider: 'openai', match: /^gpt-4o-mini/, price: openai(0.15, 0.075, 0.6) },
  { provider: 'openai', match: /^gpt-4o(-\d{4}-\d{2}-\d{2})?$/, price: openai(2.5, 1.25, 10) },
  { provider: 'openai', match: /^o4-mini/, price: openai(1.1, 0.275, 4.4) },
  { provider: 'openai', match: /^o3-mini/, price: openai(1.1, 0.55, 4.4) },
  { provider: 'openai', match: /^o3(-\d{4}-\d{2}-\d{2})?$/, price: openai(2, 0.5, 8) },
  { provider: 'openai', match: /^o1(-\d{4}-\d{2}-\d{2})?$/, price: openai(15, 7.5, 60) },
  // Ollama runs the model on the person's own machine: no per-token charge.
  { provider: 'ollama', match: /./, price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
];

/** Price of 'provider:model', or undefined when unknown. */
export function priceFor(modelId: string): ModelPrice | undefined {
  const colon = modelId.indexOf(':');
  if (colon <= 0) return undefined;
  const provider = modelId.slice(0, colon);
  const name = normalizeModelName(modelId.slice(colon + 1));
  return PRICE_RULES.find((rule) => rule.provider === provider && rule.match.test(name))?.price;
}

/** A price the person set for a model (cache prices default to the input price). */
export interface PriceOverride {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** The price of 'provider:model': the person's for it, else the table's; null when unknown. */
export function resolvePrice(modelId: string, overrides?: Readonly<Record<string, PriceOverride>>): ModelPrice | null {
  const set = overrides?.[modelId];
  if (set !== undefined) return { input: set.input, output: set.output, cacheRead: set.cacheRead ?? set.input, cacheWrite: set.cacheWrite ?? set.input };
  return priceFor(modelId) ?? null;
}

/** The model's price: its own (set when it was made), else the table's by its id. */
export function modelPrice(model: Pick<ChatModel, 'id' | 'price'>): ModelPrice | null {
  return model.price !== undefined ? model.price : (priceFor(model.id) ?? null);
}

/** Cost in US dollars of one call's usage at a price, or undefined when the price is unknown. */
export function costAt(price: ModelPrice | null, usage: Usage): number | undefined {
  if (price === null) return undefined;
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const dollars =
    uncached * price.input +
    usage.cacheReadTokens * price.cacheRead +
    usage.cacheWriteTokens * price.cacheWrite +
    usage.outputTokens * price.output;
  return dollars / 1_000_000;
}

/** Cost in US dollars of one call's usage by the table's price of 'provider:model', or undefined when unknown. */
export function costOf(modelId: string, usage: Usage): number | undefined {
  return costAt(priceFor(modelId) ?? null, usage);
}
