// The providers by name. Each implementation loads its SDK only when it is used, so naming a
// provider costs nothing until a sandbox is made or found.

import type { ProviderCredentials, SandboxProvider, SandboxProviderName } from './provider';

type Factory = (credentials: ProviderCredentials) => Promise<SandboxProvider>;

const FACTORIES: Record<SandboxProviderName, Factory> = {
  daytona: async (c) => (await import('./daytona/daytona-provider')).createDaytonaProvider(c),
  e2b: async (c) => (await import('./e2b/e2b-provider')).createE2bProvider(c),
  modal: async (c) => (await import('./modal/modal-provider')).createModalProvider(c),
  deno: async (c) => (await import('./deno/deno-provider')).createDenoProvider(c),
};

/** The provider named, with its credentials checked (a missing one throws SandboxProviderError 'credentials'). */
export function openSandboxProvider(name: SandboxProviderName, credentials: ProviderCredentials): Promise<SandboxProvider> {
  return FACTORIES[name](credentials);
}

/** Every credential variable a provider reads, for Settings › Sandboxes and the child-environment filter. */
export const PROVIDER_VARIABLES: Record<SandboxProviderName, { keys: readonly string[]; endpoints: readonly string[] }> = {
  daytona: { keys: ['DAYTONA_API_KEY'], endpoints: ['DAYTONA_API_URL', 'DAYTONA_TARGET'] },
  modal: { keys: ['MODAL_TOKEN_ID', 'MODAL_TOKEN_SECRET'], endpoints: ['MODAL_SERVER_URL', 'MODAL_ENVIRONMENT'] },
  e2b: { keys: ['E2B_API_KEY'], endpoints: ['E2B_DOMAIN', 'E2B_API_URL', 'E2B_SANDBOX_URL'] },
  deno: { keys: ['DENO_DEPLOY_TOKEN', 'DENO_DEPLOY_ORG'], endpoints: ['DENO_DEPLOY_ENDPOINT', 'DENO_SANDBOX_ENDPOINT'] },
};
