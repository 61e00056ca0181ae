// The conformance suite on a sandbox provider's workspace (SPEC §18): ProviderBackend over a
// LocalBoxProvider sandbox (a real bubblewrap box) must give the disk backend's results case for case.

import { afterAll } from 'vitest';
import { LocalBoxProvider } from '../../sandbox-providers/testing/local-box-provider';
import { ProviderBackend } from '../provider/provider-backend';
import { describeBackendConformance } from './suite.test-support';

const provider = new LocalBoxProvider();
afterAll(() => provider.dispose());

describeBackendConformance('ProviderBackend (local box)', {
  create: async () => {
    const sandbox = await provider.create({ labels: {} });
    return { backend: new ProviderBackend(sandbox), cleanup: () => provider.remove(sandbox.id) };
  },
});
