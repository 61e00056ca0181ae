// The providers as the window shows them are THE table's rows (core/process/sandbox-provider-table.ts),
// and each adapter says of itself what its row says.

import { describe, expect, it } from 'vitest';
import { openSandboxProvider } from '../../core/sandbox-providers/registry';
import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE, runsInText, sandboxProviderSchema } from './sandboxes';

describe('the sandbox providers as the window shows them', () => {
  it("has each adapter's capabilities as its row says", async () => {
    for (const name of SANDBOX_PROVIDER_NAMES) {
      // Made-up credentials: opening checks that they are there, contacting no one (a Deno organization token names its organization).
      const saved = Object.fromEntries(SANDBOX_PROVIDER_TABLE[name].keys.map((k) => [k, 'ddo_made-up']));
      const provider = await openSandboxProvider(name, { env: {}, saved });
      expect({ name: provider.name, capabilities: provider.capabilities }).toEqual({ name, capabilities: SANDBOX_PROVIDER_TABLE[name].capabilities });
    }
  });

  it('takes exactly the providers of the table', () => {
    expect(sandboxProviderSchema.options).toEqual(Object.keys(SANDBOX_PROVIDER_TABLE));
  });

  it('says where a thread runs in the words of SPEC §18', () => {
    expect(runsInText({ label: 'Daytona', sandboxId: 'abc123' })).toBe('Runs in Daytona · sandbox abc123');
  });
});
