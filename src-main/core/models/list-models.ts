// The models a provider offers, for the settings' model picker: OpenAI-style `GET /models`
// (OpenAI, LM Studio, llama.cpp, vLLM), Anthropic's `GET /v1/models`, and Ollama's
// `/api/tags` (its OpenAI-style list as a fallback). Keys and base URLs are found as
// createChatModel finds them.

import { ANTHROPIC_URL, GOOGLE_URL, OPENAI_URL, checkUrl, nonEmpty, ollamaUrl } from './create-model';
import { providerCredential } from './provider-keys';
import { ModelConfigError } from './errors';
import type { ProviderName } from './types';

export interface ListModelsOptions {
  provider: ProviderName;
  baseUrl?: string;
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
}

interface Request {
  url: string;
  headers: Record<string, string>;
}

/** Model ids, sorted; throws with a message a person can act on. */
export async function listModels(options: ListModelsOptions): Promise<string[]> {
  const env = options.env ?? process.env;
  const apiKey = nonEmpty(options.apiKey);
  const baseUrl = nonEmpty(options.baseUrl);
  if (baseUrl !== undefined) checkUrl(baseUrl);

  switch (options.provider) {
    case 'anthropic': {
      const credential = providerCredential('anthropic', env, apiKey);
      if (credential === undefined) throw new ModelConfigError('No API key for anthropic: save one first', { missing: 'api-key', provider: 'anthropic' });
      const base = trimSlash(baseUrl ?? nonEmpty(env.ANTHROPIC_BASE_URL) ?? ANTHROPIC_URL);
      const auth: Record<string, string> = credential.bearer ? { authorization: `Bearer ${credential.value}` } : { 'x-api-key': credential.value };
      return ids(await fetchJson({ url: `${base}/models?limit=1000`, headers: { ...auth, 'anthropic-version': '2023-06-01' } }));
    }
    case 'google': {
      const key = providerCredential('google', env, apiKey)?.value;
      if (key === undefined) throw new ModelConfigError('No API key for google: save one first', { missing: 'api-key', provider: 'google' });
      const base = trimSlash(baseUrl ?? nonEmpty(env.GOOGLE_GENERATIVE_AI_BASE_URL) ?? GOOGLE_URL);
      const listed = (await fetchJson({ url: `${base}/models?pageSize=1000`, headers: { 'x-goog-api-key': key } })) as {
        models?: Array<{ name?: unknown; supportedGenerationMethods?: unknown }>;
      };
      const chat = (listed.models ?? []).filter((m) => !Array.isArray(m.supportedGenerationMethods) || m.supportedGenerationMethods.includes('generateContent'));
      return sorted(chat.map((m) => (typeof m.name === 'string' ? m.name.replace(/^models\//, '') : m.name)));
    }
    case 'openai':
    case 'openai-compatible': {
      const key = providerCredential(options.provider, env, apiKey)?.value;
      if (options.provider === 'openai' && key === undefined) throw new ModelConfigError('No API key for openai: save one first', { missing: 'api-key', provider: 'openai' });
      const base = baseUrl ?? (options.provider === 'openai' ? nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_URL : undefined);
      if (base === undefined) throw new ModelConfigError('Enter the server\'s base URL first, e.g. http://127.0.0.1:1234/v1', { missing: 'base-url', provider: 'openai-compatible' });
      return ids(await fetchJson({ url: `${trimSlash(base)}/models`, headers: key ? { authorization: `Bearer ${key}` } : {} }));
    }
    case 'ollama': {
      const v1 = ollamaUrl(baseUrl, env);
      const root = v1.replace(/\/v1$/, '');
      const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
      try {
        const tags = (await fetchJson({ url: `${root}/api/tags`, headers })) as { models?: Array<{ name?: unknown }> };
        return sorted((tags.models ?? []).map((m) => m.name));
      } catch {
        return ids(await fetchJson({ url: `${v1}/models`, headers }));
      }
    }
  }
}

async function fetchJson(request: Request): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(request.url, { headers: { accept: 'application/json', ...request.headers }, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    throw new Error(`Could not reach ${new URL(request.url).origin}: ${reason}`, { cause: err });
  }
  if (!response.ok) {
    const hint = response.status === 401 || response.status === 403 ? ' (check the API key)' : '';
    throw new Error(`${new URL(request.url).origin} answered ${response.status} ${response.statusText}${hint}`);
  }
  return response.json();
}

function ids(body: unknown): string[] {
  const data = (body as { data?: Array<{ id?: unknown }> } | null)?.data;
  return sorted((data ?? []).map((m) => m.id));
}

function sorted(values: unknown[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))].sort();
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
