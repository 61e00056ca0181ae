// The containment conformance suite on the sandbox provider path (provider-containment.test-support.ts) with
// the E2B adapter and its official SDK over the E2B stand-in. No test contacts E2B.

import { createE2bProvider } from '../../core/sandbox-providers/e2b/e2b-provider';
import { startE2bStandin } from '../../core/sandbox-providers/testing/e2b-standin';
import { runProviderContainment } from './provider-containment.test-support';

runProviderContainment({
  label: 'E2B',
  name: 'e2b',
  start: startE2bStandin,
  adapter: createE2bProvider,
});
