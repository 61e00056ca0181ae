// The `PROVIDER:MODEL` string of the settings, and names for detected local servers.

export const PROVIDERS = ['anthropic', 'openai', 'google', 'openai-compatible', 'ollama'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const PROVIDER_LABELS: Record<Provider, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  google: 'Google (Gemini)',
  'openai-compatible': 'OpenAI-compatible (LM Studio, llama.cpp, vLLM…)',
  ollama: 'Ollama',
};

/** The provider as a sentence names it. */
export const SHORT_PROVIDER_LABELS: Record<Provider, string> = { anthropic: 'Anthropic', openai: 'OpenAI', google: 'Google', 'openai-compatible': 'the server', ollama: 'Ollama' };

/** Providers that need an API key to answer at all. */
export function needsApiKey(provider: Provider): boolean {
  return provider === 'anthropic' || provider === 'openai' || provider === 'google';
}

/**
 * What to do before the provider's models can be listed, or null when listing can be tried:
 * Settings says this instead of a listing error nobody asked for.
 */
export function listingHint(provider: Provider, baseUrl: string, keyKnown: boolean): string | null {
  if (provider === 'openai-compatible' && baseUrl.trim() === '') return 'Enter the server’s base URL to list its models.';
  if (needsApiKey(provider) && !keyKnown) return `Add an API key for ${SHORT_PROVIDER_LABELS[provider]} to list its models.`;
  return null;
}

export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

/** Splits at the first ':' (model names such as `llama3.1:8b` keep theirs). */
export function parseModel(spec: string): { provider: Provider | null; model: string } {
  const i = spec.indexOf(':');
  if (i < 0) return { provider: null, model: spec };
  const prefix = spec.slice(0, i).trim();
  return isProvider(prefix) ? { provider: prefix, model: spec.slice(i + 1) } : { provider: null, model: spec };
}

/** The spec with its provider prefix set (or replaced). */
export function withProvider(spec: string, provider: Provider): string {
  return `${provider}:${parseModel(spec).model}`;
}

/** "Ollama", "LM Studio", "llama.cpp", else the provider and host. */
export function serverLabel(server: { provider: string; baseUrl: string }): string {
  let port = '';
  try {
    port = new URL(server.baseUrl).port;
  } catch {
    // not a URL: fall through to the generic label
  }
  if (server.provider === 'ollama' || port === '11434') return 'Ollama';
  if (port === '1234') return 'LM Studio';
  if (port === '8080') return 'llama.cpp';
  return `${server.provider} at ${server.baseUrl}`;
}
