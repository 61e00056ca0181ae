// THE table of sandbox providers, its code part: each row's factory and test stand-in, keyed by
// the names of the data part (core/process/sandbox-provider-table.ts: name, label, variables,
// capabilities, what Settings offers), so a row without a factory or a stand-in does not compile.
// Each factory loads its adapter, and so its SDK, only when it is called: naming a provider
// costs nothing until a sandbox is made or found.

import type { SandboxProviderName } from '../process/sandbox-provider-table';
import type { ProviderCredentials, SandboxProvider } from './provider';

type Factory = (credentials: ProviderCredentials) => Promise<SandboxProvider>;

interface ProviderCode {
  /** Makes the adapter with its credentials checked (a missing one throws SandboxProviderError 'credentials'). */
  open: Factory;
  /**
   * Its local stand-in for tests, a module of ./testing/ exporting `startStandin()`, as a path
   * (never imported here, so production code neither loads nor bundles test code; tests open it
   * through testing/standins.ts).
   */
  standin: string;
}

export const SANDBOX_PROVIDER_CODE: Record<SandboxProviderName, ProviderCode> = {
  daytona: { open: async (c) => (await import('./daytona/daytona-provider')).createDaytonaProvider(c), standin: 'testing/daytona-standin.ts' },
  modal: { open: async (c) => (await import('./modal/modal-provider')).createModalProvider(c), standin: 'testing/modal-standin.ts' },
  e2b: { open: async (c) => (await import('./e2b/e2b-provider')).createE2bProvider(c), standin: 'testing/e2b-standin.ts' },
  deno: { open: async (c) => (await import('./deno/deno-provider')).createDenoProvider(c), standin: 'testing/deno-standin.ts' },
};

/** The provider named, with its credentials checked (a missing one throws SandboxProviderError 'credentials'). */
export function openSandboxProvider(name: SandboxProviderName, credentials: ProviderCredentials): Promise<SandboxProvider> {
  return SANDBOX_PROVIDER_CODE[name].open(credentials);
}
