// The containment conformance suite on the sandbox provider path (provider-containment.test-support.ts) with
// the Modal adapter and its official SDK over the Modal stand-in. No test contacts Modal.

import { createModalProvider } from '../../core/sandbox-providers/modal/modal-provider';
import { startModalStandin } from '../../core/sandbox-providers/testing/modal-standin';
import { runProviderContainment } from './provider-containment.test-support';

runProviderContainment({
  label: 'Modal',
  name: 'modal',
  start: startModalStandin,
  adapter: createModalProvider,
  // Modal's SDK reads its server from process.env only.
  stubProcessEnv: true,
});
