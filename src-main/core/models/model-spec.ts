// `PROVIDER:MODEL` (SPEC §5), parsed and checked without loading any provider's SDK: a
// client checks `--model` before it asks the host for a run.

import { ModelConfigError } from './errors';
import { PROVIDERS, type ProviderName } from './types';

export interface ModelSpec {
  provider: ProviderName;
  model: string;
}

const EXAMPLE = 'e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1, google:gemini-2.5-flash, ollama:qwen3:8b';

/** Splits 'provider:model' at the first colon (Ollama tags have colons of their own). */
export function parseModelSpec(spec: string): ModelSpec {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(':');
  if (colon <= 0) {
    throw new ModelConfigError(`Invalid model "${spec}": expected PROVIDER:MODEL (${EXAMPLE}); providers: ${PROVIDERS.join(', ')}`);
  }
  const written = trimmed.slice(0, colon).toLowerCase();
  // Deep Agents names Gemini `google_genai:MODEL` (LangChain's provider id).
  const provider = written === 'google_genai' ? 'google' : written;
  const model = trimmed.slice(colon + 1).trim();
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    throw new ModelConfigError(`Unknown model provider "${trimmed.slice(0, colon)}" in "${spec}"; use one of: ${PROVIDERS.join(', ')}`);
  }
  if (model === '') throw new ModelConfigError(`Missing model name in "${spec}": expected PROVIDER:MODEL (${EXAMPLE})`);
  return { provider: provider as ProviderName, model };
}
