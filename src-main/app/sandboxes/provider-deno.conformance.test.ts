// The containment conformance suite on the sandbox provider path (provider-containment.test-support.ts) with
// the Deno adapter and its official SDK over the Deno stand-in. No test contacts Deno.

import { createDenoProvider } from '../../core/sandbox-providers/deno/deno-provider';
import { startDenoStandin } from '../../core/sandbox-providers/testing/deno-standin';
import { runProviderContainment } from './provider-containment.test-support';

runProviderContainment({
  label: 'Deno',
  name: 'deno',
  start: startDenoStandin,
  adapter: createDenoProvider,
});
