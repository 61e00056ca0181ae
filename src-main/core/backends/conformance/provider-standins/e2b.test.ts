// §3's conformance cases and Deep Agents' sandbox standard cases over the E2B adapter and its
// official SDK against the local stand-in (standin-suites.ts). No test contacts E2B.

import { createE2bProvider } from '../../../sandbox-providers/e2b/e2b-provider';
import { startE2bStandin } from '../../../sandbox-providers/testing/e2b-standin';
import { describeStandinSuites } from './standin-suites.test-support';

describeStandinSuites({
  label: 'E2B',
  start: startE2bStandin,
  adapter: createE2bProvider,
});
