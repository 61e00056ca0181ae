// The one model factory of a folder session: the main model and every model named by spec (a
// subagent's `model`, an editor's `/model`), from a client's flags over what Settings saved
// (model, base URL, key, context window, media input, prices), read when a run asks. A flag
// applies to this session only; a key comes from the flag, else the secret store Settings
// saves keys in, else the provider's variables.

import type { OverSettingsFlags } from '../base/session-flags';
import { createChatModel, describedModel } from '../../core/models/create-model';
import { parseModelSpec } from '../../core/models/model-spec';
import { ModelConfigError } from '../../core/models/errors';
import type { RetryPolicy } from '../../core/models/retry';
import type { ChatModel, ProviderName } from '../../core/models/types';
import { ContractError, type Settings } from '../contract';
import { modelProblemForWindow } from '../base/model-problem-words';

/** A client's model flags (`--model`, `--base-url`, `--api-key`, `--context-window`). */
/** The session flags that win over Settings' model (THE table: app/base/session-flags.ts). */
export type ModelFlags = OverSettingsFlags;

/** Where the person fixes a model problem: the window's Settings, or the command's flags. */
export type ModelWording = 'window' | 'command';

export interface SessionModelsOptions {
  flags: ModelFlags;
  env: NodeJS.ProcessEnv;
  /** Settings as saved now. */
  settings: () => Pick<Settings, 'model' | 'baseUrl' | 'contextWindow' | 'mediaInput' | 'prices'>;
  /** The key Settings keeps for a provider (its secret store, then the provider's variables). */
  apiKeyFor: (provider: ProviderName) => Promise<string | undefined>;
  wording: ModelWording;
}

export interface SessionModels {
  /** The session's model; rejects with a ContractError that says where to set one. */
  main(retry?: RetryPolicy): Promise<ChatModel>;
  /** A model named by `provider:model`, with the session's keys and Settings' overrides. */
  named(spec: string, options?: { baseUrl?: string; apiKey?: string; retry?: RetryPolicy }): Promise<ChatModel>;
  /** The spec the main model is made from (flag, then DEEPDESK_MODEL for a command, then Settings), '' when none. */
  spec(): string;
  /** The context window a flag or Settings set (undefined: the model's own). */
  contextWindow(): number | undefined;
  /** The main model as far as a request depends on it, with no key needed (none chosen: a stand-in); it cannot be called. */
  described(): ChatModel;
}

/** Models a session keeps made (the main one, a subagent's or two). */
const MADE_MODELS = 8;

export function sessionModels(options: SessionModelsOptions): SessionModels {
  const { flags, env, wording } = options;
  const spec = (): string => {
    const fromCommand = wording === 'command' ? env.DEEPDESK_MODEL?.trim() : undefined;
    return (flags.model ?? (fromCommand || undefined) ?? options.settings().model).trim();
  };
  const contextWindow = () => flags.contextWindow ?? options.settings().contextWindow;
  /**
   * Models made, by everything they were made from (the session's environment is fixed): a warm
   * session's next run takes the same one instead of building its provider again (the SDK's
   * response schemas, a few milliseconds a run). A model keeps nothing of a run; a changed key,
   * URL, window or price is another entry.
   */
  const made = new Map<string, ChatModel>();

  const named: SessionModels['named'] = async (modelSpec, extra = {}) => {
    const { provider } = parseModelSpec(modelSpec);
    const saved = options.settings();
    // Settings' base URL is the one of Settings' provider: a model of another provider never goes there.
    const savedBaseUrl = saved.baseUrl !== '' && saved.model !== '' && providerOf(saved.model) === provider ? saved.baseUrl : undefined;
    const baseUrl = extra.baseUrl ?? flags.baseUrl ?? savedBaseUrl;
    const apiKey = extra.apiKey ?? flags.apiKey ?? (await options.apiKeyFor(provider));
    const window = contextWindow();
    const given = {
      model: modelSpec,
      ...(baseUrl ? { baseUrl } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(window ? { contextWindow: window } : {}),
      ...(saved.mediaInput ? { mediaInputOverrides: saved.mediaInput } : {}),
      ...(saved.prices ? { priceOverrides: saved.prices } : {}),
    };
    // A retry policy of the caller's is its own model.
    if (extra.retry) return createChatModel({ ...given, env, retry: extra.retry });
    const key = JSON.stringify(given);
    const kept = made.get(key);
    if (kept !== undefined) return kept;
    const model = createChatModel({ ...given, env });
    if (made.size >= MADE_MODELS) made.delete(made.keys().next().value!);
    made.set(key, model);
    return model;
  };

  return {
    spec,
    contextWindow,
    named,
    described() {
      const chosen = spec();
      const window = contextWindow();
      const { mediaInput } = options.settings();
      return describedModel({ ...(chosen !== '' ? { model: chosen } : {}), ...(window ? { contextWindow: window } : {}), ...(mediaInput ? { mediaInputOverrides: mediaInput } : {}) });
    },
    async main(retry) {
      const chosen = spec();
      if (chosen === '') {
        throw wording === 'window'
          ? new ContractError('No model is configured yet. Open Settings and choose a provider and model.', 'needs_settings')
          : new ContractError('no model configured: pass --model PROVIDER:MODEL (or set DEEPDESK_MODEL, or choose one in Settings)', 'bad_request');
      }
      try {
        return await named(chosen, retry ? { retry } : {});
      } catch (err) {
        if (!(err instanceof ModelConfigError)) throw err;
        // The window has no command line: say where in the window to fix it.
        if (wording === 'window') throw new ContractError(modelProblemForWindow(err, 'Settings'), 'needs_settings');
        // A bad spec is bad usage; a missing key is an error of its own (exit 1, SPEC §12).
        if (err.missing !== 'api-key') throw new ContractError(err.message, 'bad_request');
        throw err;
      }
    },
  };
}

function providerOf(spec: string): ProviderName | undefined {
  try {
    return parseModelSpec(spec).provider;
  } catch {
    return undefined;
  }
}
