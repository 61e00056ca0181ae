// `--sandbox PROVIDER` and `--sandbox-id ID` (SPEC §18), checked the same way on run, serve and acp.

import { SANDBOX_PROVIDER_NAMES, isSandboxProviderName } from '../core/sandbox-providers/provider';
import type { SandboxRequest } from '../app/sandboxes/sandbox-request';
import { UsageError } from './usage';

export function sandboxFlags(provider: string | undefined, id: string | undefined): SandboxRequest | undefined {
  if (provider === undefined && id === undefined) return undefined;
  if (provider !== undefined && !isSandboxProviderName(provider)) throw new UsageError(`--sandbox must be ${SANDBOX_PROVIDER_NAMES.join(', ')} (got '${provider}')`);
  if (id !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/.test(id)) throw new UsageError(`--sandbox-id: '${id}' is not a sandbox id`);
  return { ...(provider !== undefined ? { provider } : {}), ...(id !== undefined ? { id } : {}) };
}
