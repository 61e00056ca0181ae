// Editors' agents as the agent host serves them (SPEC §14, §16): the stream the host carries
// (acp-tunnels.ts), and the agent opened on it (open-acp-session.ts).

import type { HostAdapter, HostParts } from '../../host/host-adapters';
import { HostAcp } from './acp-tunnels';

export function editorsAdapter(host: HostParts): HostAdapter {
  // The Agent Client Protocol's SDK loads with the first editor, not with every host.
  return new HostAcp({ open: async (streams, params) => (await import('./open-acp-session')).openAcpSession(streams, params, host), log: host.log });
}
