// Editors' agents as the agent host serves them (SPEC §14, §16): `acp.open` starts one on the
// stream the host carries (acp-tunnels.ts), `acp.in` brings the editor's bytes.

import { asHostError } from '../../base/host-service';
import { hostMethod, type HostAdapter, type HostParts } from '../../host/host-adapters';
import { acpInParams, acpOpenParams, HostAcp } from './acp-tunnels';

export function editorsAdapter(host: HostParts): HostAdapter {
  const editors = new HostAcp({
    // The Agent Client Protocol's SDK loads with the first editor, not with every host.
    open: async (streams, params) => (await import('./open-acp-session')).openAcpSession(streams, params, { dataDir: host.dataDir, secrets: host.secrets }),
    log: host.log,
  });
  return {
    methods: {
      'acp.open': hostMethod(acpOpenParams, async (connection, params) => {
        try {
          return await editors.open(connection, params);
        } catch (err) {
          throw asHostError(err);
        }
      }),
      'acp.in': hostMethod(acpInParams, (connection, params) => editors.input(connection, params.data)),
    },
    busy: () => editors.busy(),
    working: (threadId) => editors.working(threadId),
    stop: (threadId) => editors.stop(threadId),
    close: () => editors.close(),
  };
}
