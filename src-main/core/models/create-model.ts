import type { LanguageModelV4, SharedV4ProviderOptions } from '@ai-sdk/provider';
import { withholdFromCommands } from '../process/app-secrets';
import { AiSdkChatModel } from './ai-sdk-adapter';
import { ModelConfigError } from './errors';
import { PROVIDER_MEDIA_INPUT, mediaInputFor } from '../media/capabilities';
import type { MediaInput, ChatModel, ProviderName } from './types';
import { mediaInputOverride, type MediaInputOverrides } from '../media/override';
import { DEFAULT_CONTEXT_WINDOW, contextWindowFor } from './model-info';
import type { RetryPolicy } from './retry';
import type { PromptMapping } from './to-sdk-prompt';
import { parseModelSpec } from './model-spec';
import { allProviderKeyVariables, keyVariablesText, providerCredential } from './provider-keys';
import { resolvePrice, type PriceOverride } from './model-info';

export interface CreateChatModelOptions {
  /** 'provider:model', e.g. 'anthropic:claude-sonnet-4-5', 'ollama:qwen3:8b'. */
  model: string;
  baseUrl?: string;
  apiKey?: string;
  /** Overrides the known window of the model (--context-window). */
  contextWindow?: number;
  /** Where API keys and base URLs are looked up (default process.env). */
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  retry?: RetryPolicy;
  /** The media input set per model in Settings; this model's entry replaces its provider's row. */
  mediaInputOverrides?: MediaInputOverrides;
  /** Prices set per 'provider:model' in Settings; this model's replaces the table's (SPEC §17). */
  priceOverrides?: Readonly<Record<string, PriceOverride>>;
}

export const ANTHROPIC_URL = 'https://api.anthropic.com/v1';
export const OPENAI_URL = 'https://api.openai.com/v1';
export const GOOGLE_URL = 'https://generativelanguage.googleapis.com/v1beta';
const OLLAMA_URL = 'http://127.0.0.1:11434/v1';
/** Anthropic needs max_tokens; the SDK's default (the model's maximum) would eat the context window. */
const ANTHROPIC_MAX_OUTPUT_TOKENS = 32_000;
const TOOL_RESULT_IMAGES_AND_PDF: MediaInput = ['image/*', 'application/pdf'];
/** OpenAI reasoning models (they return reasoning items). */
const REASONING_MODEL = /codex|^o\d|^gpt-5|deep-research/;
/** Gemini models that think (2.5 and 3); asking others for thoughts is an error. */
const GEMINI_THINKING = /^(models\/)?gemini-(2\.5|3)/;
/** Models OpenAI serves only through the Responses API. */
const RESPONSES_ONLY = /codex|^o[13]-pro|^gpt-5(\.\d+)?-pro|deep-research|computer-use/;

export function createChatModel(options: CreateChatModelOptions): ChatModel {
  const { provider, model } = parseModelSpec(options.model);
  const mediaOverride = mediaInputOverride(options.mediaInputOverrides, provider, model);
  const env = options.env ?? process.env;
  const apiKey = nonEmpty(options.apiKey);
  withholdProviderKeys(env, apiKey);
  const baseUrl = nonEmpty(options.baseUrl);
  if (baseUrl !== undefined) checkUrl(baseUrl);
  if (options.contextWindow !== undefined && !(Number.isInteger(options.contextWindow) && options.contextWindow > 0)) {
    throw new ModelConfigError(`Invalid context window ${options.contextWindow}: expected a positive whole number of tokens`);
  }

  let languageModel: () => Promise<LanguageModelV4>;
  let mapping: PromptMapping = { toolResultMedia: [], anthropic: false };
  let endpoint: string;
  let responsesApi = false;
  let defaultMaxOutputTokens: number | undefined;
  let providerOptions: SharedV4ProviderOptions | undefined;

  switch (provider) {
    case 'anthropic': {
      const credential = providerCredential('anthropic', env, apiKey);
      if (credential === undefined) throw missingKey('anthropic');
      const baseURL = baseUrl ?? nonEmpty(env.ANTHROPIC_BASE_URL) ?? ANTHROPIC_URL;
      languageModel = loadedOnce(async () => {
        const { createAnthropic } = await import('@ai-sdk/anthropic');
        return createAnthropic({ baseURL, fetch: options.fetch, ...(credential.bearer ? { authToken: credential.value } : { apiKey: credential.value }) })(model);
      });
      endpoint = baseURL;
      mapping = { toolResultMedia: TOOL_RESULT_IMAGES_AND_PDF, anthropic: true };
      defaultMaxOutputTokens = ANTHROPIC_MAX_OUTPUT_TOKENS;
      break;
    }
    case 'openai': {
      const key = providerCredential('openai', env, apiKey)?.value;
      if (key === undefined) throw missingKey('openai');
      endpoint = baseUrl ?? nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_URL;
      const baseURL = endpoint;
      const openai = async () => (await import('@ai-sdk/openai')).createOpenAI({ apiKey: key, baseURL, fetch: options.fetch });
      if (RESPONSES_ONLY.test(model.toLowerCase())) {
        languageModel = loadedOnce(async () => (await openai()).responses(model));
        responsesApi = true;
        mapping = { toolResultMedia: TOOL_RESULT_IMAGES_AND_PDF, anthropic: false };
        // Nothing is stored at OpenAI, so reasoning comes back encrypted and goes with the thread.
        providerOptions = { openai: { store: false, ...(REASONING_MODEL.test(model.toLowerCase()) ? { include: ['reasoning.encrypted_content'] } : {}) } };
      } else {
        languageModel = loadedOnce(async () => (await openai()).chat(model));
      }
      break;
    }
    case 'google': {
      const key = providerCredential('google', env, apiKey)?.value;
      if (key === undefined) throw missingKey('google');
      endpoint = baseUrl ?? nonEmpty(env.GOOGLE_GENERATIVE_AI_BASE_URL) ?? GOOGLE_URL;
      const baseURL = endpoint;
      languageModel = loadedOnce(async () => (await import('@ai-sdk/google')).createGoogleGenerativeAI({ apiKey: key, baseURL, fetch: options.fetch })(model));
      // Gemini takes every media kind inside a function response (the SDK makes the parts).
      mapping = { toolResultMedia: PROVIDER_MEDIA_INPUT.google, anthropic: false };
      // Thinking models show their thoughts (as the other providers' reasoning is shown).
      if (GEMINI_THINKING.test(model.toLowerCase())) providerOptions = { google: { thinkingConfig: { includeThoughts: true } } };
      break;
    }
    case 'openai-compatible': {
      if (baseUrl === undefined) {
        throw new ModelConfigError(
          'The openai-compatible provider needs a base URL (--base-url), e.g. http://127.0.0.1:8080/v1 for llama.cpp or http://127.0.0.1:1234/v1 for LM Studio',
          { missing: 'base-url', provider: 'openai-compatible' },
        );
      }
      const key = providerCredential('openai-compatible', env, apiKey)?.value;
      endpoint = baseUrl;
      languageModel = compatibleModel('openai-compatible', baseUrl, key, options.fetch, model);
      break;
    }
    case 'ollama': {
      endpoint = ollamaUrl(baseUrl, env);
      languageModel = compatibleModel('ollama', endpoint, apiKey, options.fetch, model);
      break;
    }
  }

  return new AiSdkChatModel({
    id: `${provider}:${model}`,
    provider,
    contextWindow: windowOf(options, provider, model),
    mediaInput: mediaInputFor(provider, model, { responsesApi, ...(mediaOverride !== undefined ? { override: mediaOverride } : {}) }),
    price: resolvePrice(`${provider}:${model}`, options.priceOverrides),
    endpoint,
    languageModel,
    mapping,
    retry: options.retry,
    defaultMaxOutputTokens,
    providerOptions,
  });
}

function windowOf(options: Pick<CreateChatModelOptions, 'contextWindow'>, provider: ProviderName, model: string): number {
  return options.contextWindow ?? contextWindowFor(provider, model) ?? DEFAULT_CONTEXT_WINDOW;
}

/** The id of the stand-in describedModel gives when no model is chosen. */
export const NO_MODEL = 'none';

/**
 * A model as far as a request depends on it (provider, context window, media input), made
 * without a key or a connection, to show the request a run would send; it cannot be called.
 * Without a spec: no model chosen yet, an OpenAI-compatible one of the default window.
 */
export function describedModel(options: Partial<Pick<CreateChatModelOptions, 'model' | 'contextWindow' | 'mediaInputOverrides'>>): ChatModel {
  const { provider, model } = options.model ? parseModelSpec(options.model) : { provider: 'openai-compatible' as const, model: NO_MODEL };
  const override = mediaInputOverride(options.mediaInputOverrides, provider, model);
  return {
    id: options.model ? `${provider}:${model}` : NO_MODEL,
    provider,
    contextWindow: windowOf(options, provider, model),
    mediaInput: mediaInputFor(provider, model, override !== undefined ? { override } : {}),
    stream() {
      throw new ModelConfigError(`${model} is only described here, not connected: it cannot be called`);
    },
  };
}

function compatibleModel(name: string, baseURL: string, apiKey: string | undefined, fetchFn: typeof fetch | undefined, model: string): () => Promise<LanguageModelV4> {
  return loadedOnce(async () => (await import('@ai-sdk/openai-compatible')).createOpenAICompatible({
    name,
    baseURL,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(fetchFn ? { fetch: fetchFn } : {}),
    // Without this the server sends no usage in streams (stream_options.include_usage).
    includeUsage: true,
  }).chatModel(model));
}

/**
 * The provider's SDK is loaded at the model's first call, once: the AI SDK's providers are
 * ~7 MB of a process's memory, which the agent host paid at start for windows that never ran
 * the agent (issue 66). A load that failed is tried again at the next call.
 */
function loadedOnce(load: () => Promise<LanguageModelV4>): () => Promise<LanguageModelV4> {
  let model: Promise<LanguageModelV4> | undefined;
  return () =>
    (model ??= load().catch((err: unknown) => {
      model = undefined;
      throw err;
    }));
}

/** --base-url, else OLLAMA_HOST ("host:port" or a URL, as the ollama CLI reads it), else localhost. '/v1' is added when no path is given. */
export function ollamaUrl(baseUrl: string | undefined, env: NodeJS.ProcessEnv): string {
  const host = nonEmpty(env.OLLAMA_HOST);
  let raw = baseUrl;
  if (raw === undefined && host !== undefined) {
    raw = /^https?:\/\//i.test(host) ? host : `http://${host}`;
    const url = new URL(raw);
    if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
    if (url.port === '' && !/^https?:\/\/[^/]+:\d+/i.test(raw)) url.port = '11434';
    raw = url.toString();
    checkUrl(raw);
  }
  if (raw === undefined) return OLLAMA_URL;
  const url = new URL(raw);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1';
  return url.toString().replace(/\/+$/, '');
}

export function checkUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ModelConfigError(`Invalid base URL "${value}": expected an http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelConfigError(`Invalid base URL "${value}": expected an http:// or https:// URL`);
  }
}

function missingKey(provider: ProviderName): ModelConfigError {
  return new ModelConfigError(`No API key for ${provider}: set ${keyVariablesText(provider)} or pass --api-key`, { missing: 'api-key', provider });
}

/** Whatever key a model may use (a flag, Settings, any provider's variable) stays out of the agent's commands. */
export function withholdProviderKeys(env: NodeJS.ProcessEnv, given?: string): void {
  withholdFromCommands(given);
  for (const name of allProviderKeyVariables()) withholdFromCommands(env[name]);
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
