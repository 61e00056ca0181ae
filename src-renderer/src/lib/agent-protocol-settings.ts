// Settings › Agent Protocol as typed (SPEC §19): where the agent host listens when
// `deepdesk host` is given no --listen, whether other computers may connect, which browser
// origins may call, the runs' folder when a request names none. Checked with the host's own
// rules before anything is saved.

import { corsOriginError, listenRefusal, parseListenAddress, protocolFolderError, type AgentProtocolSettings } from '../../../src-main/app/contract';

export interface AgentProtocolDraft {
  protocolListenText: string;
  protocolAllowRemote: boolean;
  /** One origin a line. */
  protocolOriginsText: string;
  /** Empty: none. */
  protocolFolderText: string;
}

export function agentProtocolDraft(saved: AgentProtocolSettings | undefined): AgentProtocolDraft {
  return { protocolListenText: saved?.listen ?? '', protocolAllowRemote: saved?.allowRemote === true, protocolOriginsText: (saved?.corsOrigins ?? []).join('\n'), protocolFolderText: saved?.folder ?? '' };
}

/** What to save, or what is wrong in words. */
export function agentProtocolFromDraft(draft: AgentProtocolDraft): { agentProtocol: AgentProtocolSettings } | { error: string } {
  const listen = draft.protocolListenText.trim();
  if (listen !== '') {
    const address = parseListenAddress(listen);
    if ('error' in address) return { error: `Agent Protocol, Listen on: ${address.error}.` };
    const refusal = listenRefusal(address, draft.protocolAllowRemote);
    if (refusal !== undefined) return { error: `Agent Protocol, Listen on: ${refusal.replace('add --allow-remote', 'tick Allow other computers')}.` };
  }
  const corsOrigins = draft.protocolOriginsText
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  for (const origin of corsOrigins) {
    const why = corsOriginError(origin);
    if (why !== undefined) return { error: `Agent Protocol, Allowed browser origins: ${why}.` };
  }
  const folder = draft.protocolFolderText.trim();
  if (folder !== '') {
    const why = protocolFolderError(folder);
    if (why !== undefined) return { error: `Agent Protocol, Default folder: ${why}.` };
  }
  return { agentProtocol: { listen, allowRemote: draft.protocolAllowRemote, corsOrigins, ...(folder !== '' ? { folder } : {}) } };
}
