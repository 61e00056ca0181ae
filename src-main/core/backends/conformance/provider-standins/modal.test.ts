// §3's conformance cases and Deep Agents' sandbox standard cases over the Modal adapter and its
// official SDK against the local stand-in (standin-suites.ts). No test contacts Modal.

import { createModalProvider } from '../../../sandbox-providers/modal/modal-provider';
import { startModalStandin } from '../../../sandbox-providers/testing/modal-standin';
import { describeStandinSuites } from './standin-suites.test-support';

describeStandinSuites({
  label: 'Modal',
  start: startModalStandin,
  adapter: createModalProvider,
  // Modal's SDK reads its server from process.env only.
  stubProcessEnv: true,
});
