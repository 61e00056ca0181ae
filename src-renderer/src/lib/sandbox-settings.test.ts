// Settings › Sandboxes keeps only the sizes the chosen provider's row offers (THE provider table).

import { describe, expect, it } from 'vitest';
import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE } from '../../../src-main/app/contract';
import { offersSize, sandboxesDraft, sandboxesFromDraft } from './sandbox-settings';

describe('Settings › Sandboxes sizes', () => {
  it("keeps CPUs and memory exactly where the provider's row offers them", () => {
    for (const provider of SANDBOX_PROVIDER_NAMES) {
      const { offers } = SANDBOX_PROVIDER_TABLE[provider];
      const made = sandboxesFromDraft({ ...sandboxesDraft(undefined), provider, cpu: '2', memory: '4' });
      expect(made).toEqual({ sandboxes: { provider, ...(offers.cpu ? { cpu: 2 } : {}), ...(offers.memory ? { memoryGiB: 4 } : {}) } });
      expect([offersSize(provider, 'cpu'), offersSize(provider, 'memory')]).toEqual([offers.cpu, offers.memory]);
    }
  });

  it('offers every size while no provider is chosen', () => {
    expect(sandboxesFromDraft({ ...sandboxesDraft(undefined), cpu: '2', memory: '4' })).toEqual({ sandboxes: { cpu: 2, memoryGiB: 4 } });
  });
});
