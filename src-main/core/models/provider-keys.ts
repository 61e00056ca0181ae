// The one table of where each provider's credential is read from the environment (SPEC §12):
// running a model, listing its models and the settings' key lookup all read it. Each of these
// variables is one of Deepdesk's own credentials, withheld from what it starts (the class
// rule of process/shell-env.ts covers every name here; provider-keys.test.ts holds it to that).
import type { ProviderName } from './types';

export interface KeyVariable {
  name: string;
  /** A bearer token, sent as `Authorization: Bearer` in place of the provider's key header. */
  bearer: boolean;
}

/** Per provider, its variables in precedence order (the first one set wins). */
export const PROVIDER_KEY_VARIABLES: Readonly<Record<ProviderName, readonly KeyVariable[]>> = {
  anthropic: [
    { name: 'ANTHROPIC_API_KEY', bearer: false },
    { name: 'ANTHROPIC_AUTH_TOKEN', bearer: true },
  ],
  openai: [{ name: 'OPENAI_API_KEY', bearer: false }],
  google: [
    { name: 'GOOGLE_GENERATIVE_AI_API_KEY', bearer: false },
    { name: 'GEMINI_API_KEY', bearer: false },
  ],
  'openai-compatible': [{ name: 'OPENAI_API_KEY', bearer: false }],
  ollama: [],
};

/** A provider's credential: a key from a flag or Settings, else the first of its variables set. */
export interface ProviderCredential {
  value: string;
  bearer: boolean;
  /** The variable it came from; undefined for a key given directly. */
  variable?: string;
}

/** The credential for `provider`: `given` (a flag's or Settings' key) first, else its variables in order. */
export function providerCredential(provider: ProviderName, env: NodeJS.ProcessEnv, given?: string): ProviderCredential | undefined {
  const key = given?.trim();
  if (key) return { value: key, bearer: false };
  for (const variable of PROVIDER_KEY_VARIABLES[provider]) {
    const value = env[variable.name]?.trim();
    if (value) return { value, bearer: variable.bearer, variable: variable.name };
  }
  return undefined;
}

/** The variables a missing-key message names: "ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN". */
export function keyVariablesText(provider: ProviderName): string {
  return PROVIDER_KEY_VARIABLES[provider].map((v) => v.name).join(' or ');
}

/** Every provider-key variable, once. */
export function allProviderKeyVariables(): string[] {
  return [...new Set(Object.values(PROVIDER_KEY_VARIABLES).flatMap((list) => list.map((v) => v.name)))];
}
