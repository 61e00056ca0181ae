// The window's table of which providers offer CPU and memory is each adapter's own capability,
// and Settings names every provider's key variables (core/sandbox-providers/registry.ts).

import { describe, expect, it } from 'vitest';
import { openSandboxProvider, PROVIDER_VARIABLES } from '../../core/sandbox-providers/registry';
import { SANDBOX_PROVIDER_NAMES } from '../../core/sandbox-providers/provider';
import { SANDBOX_PROVIDER_SIZES, runsInText } from './sandboxes';

describe('the sandbox providers as the window shows them', () => {
  it('offers CPU and memory exactly where the adapter takes them', async () => {
    for (const name of SANDBOX_PROVIDER_NAMES) {
      // Made-up credentials: opening checks that they are there, contacting no one (a Deno organization token names its organization).
      const saved = Object.fromEntries(PROVIDER_VARIABLES[name].keys.map((k) => [k, name === 'deno' ? 'ddo_made-up' : 'made-up']));
      const provider = await openSandboxProvider(name, { env: {}, saved });
      expect({ name, resources: SANDBOX_PROVIDER_SIZES[name] }).toEqual({ name, resources: provider.capabilities.resources });
    }
  });

  it('says where a thread runs in the words of SPEC §18', () => {
    expect(runsInText({ label: 'Daytona', sandboxId: 'abc123' })).toBe('Runs in Daytona · sandbox abc123');
  });
});
