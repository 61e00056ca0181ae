// The containment conformance suite on the sandbox provider path (provider-containment.test-support.ts) with
// the Daytona adapter and its official SDK over the Daytona stand-in. No test contacts Daytona.

import { createDaytonaProvider } from '../../core/sandbox-providers/daytona/daytona-provider';
import { startDaytonaStandin } from '../../core/sandbox-providers/testing/daytona-standin';
import { runProviderContainment } from './provider-containment.test-support';

runProviderContainment({
  label: 'Daytona',
  name: 'daytona',
  start: startDaytonaStandin,
  adapter: createDaytonaProvider,
});
