// §3's conformance cases and Deep Agents' sandbox standard cases over the Daytona adapter and its
// official SDK against the local stand-in (standin-suites.ts). No test contacts Daytona.

import { createDaytonaProvider } from '../../../sandbox-providers/daytona/daytona-provider';
import { startDaytonaStandin } from '../../../sandbox-providers/testing/daytona-standin';
import { describeStandinSuites } from './standin-suites.test-support';

describeStandinSuites({
  label: 'Daytona',
  start: startDaytonaStandin,
  adapter: createDaytonaProvider,
});
