// Deep Agents' sandbox standard tests (standard-cases.ts) on ProviderBackend over a
// LocalBoxProvider sandbox, one sandbox for the file as Deep Agents shares one instance.

import { afterAll, beforeAll } from 'vitest';
import { LocalBoxProvider } from '../../../sandbox-providers/testing/local-box-provider';
import { ProviderBackend } from '../../provider/provider-backend';
import { deepAgentsSandboxCases } from './standard-cases.test-support';

const provider = new LocalBoxProvider();
let backend: ProviderBackend | undefined;

beforeAll(async () => {
  backend = new ProviderBackend(await provider.create({ labels: {} }));
});
afterAll(() => provider.dispose());

deepAgentsSandboxCases(() => {
  if (!backend) throw new Error('no sandbox');
  return backend;
});
