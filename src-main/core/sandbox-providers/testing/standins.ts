// The providers' stand-ins as THE table names them (registry.ts `standin`): every provider's,
// by name, for tests only. Opened by path so that production code never imports test code.

import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { SandboxProviderName } from '../provider';
import { SANDBOX_PROVIDER_CODE } from '../registry';
import type { ProviderStandin } from './standin';

/** Starts the named provider's local stand-in. */
export async function startStandin(name: SandboxProviderName): Promise<ProviderStandin> {
  const url = pathToFileURL(join(import.meta.dirname, '..', SANDBOX_PROVIDER_CODE[name].standin)).href;
  const module = (await import(/* @vite-ignore */ url)) as { startStandin(): Promise<ProviderStandin> };
  return module.startStandin();
}
