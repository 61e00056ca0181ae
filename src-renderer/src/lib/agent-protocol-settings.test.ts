import { describe, expect, it } from 'vitest';
import { agentProtocolDraft, agentProtocolFromDraft } from './agent-protocol-settings';

describe('Settings › Agent Protocol', () => {
  it('is off by default and round-trips what is saved', () => {
    expect(agentProtocolDraft(undefined)).toEqual({ protocolListenText: '', protocolAllowRemote: false, protocolOriginsText: '', protocolFolderText: '' });
    const saved = { listen: '127.0.0.1:2024', allowRemote: false, corsOrigins: ['http://localhost:3000', 'https://app.example'] };
    expect(agentProtocolFromDraft(agentProtocolDraft(saved))).toEqual({ agentProtocol: saved });
    expect(agentProtocolFromDraft({ protocolListenText: ' ', protocolAllowRemote: false, protocolOriginsText: '\n', protocolFolderText: ' ' })).toEqual({ agentProtocol: { listen: '', allowRemote: false, corsOrigins: [] } });
    const withFolder = { ...saved, folder: '/home/ann/project' };
    expect(agentProtocolFromDraft(agentProtocolDraft(withFolder))).toEqual({ agentProtocol: withFolder });
  });

  it('takes a default folder only as an absolute path', () => {
    const draft = { protocolListenText: '2024', protocolAllowRemote: false, protocolOriginsText: '' };
    expect(agentProtocolFromDraft({ ...draft, protocolFolderText: 'project' })).toEqual({ error: "Agent Protocol, Default folder: 'project' is not an absolute path." });
    expect(agentProtocolFromDraft({ ...draft, protocolFolderText: ' C:\\work ' })).toEqual({ agentProtocol: { listen: '2024', allowRemote: false, corsOrigins: [], folder: 'C:\\work' } });
  });

  it('checks with the host rules: [HOST:]PORT, loopback unless other computers are allowed, origins as browsers send them', () => {
    expect(agentProtocolFromDraft({ protocolListenText: 'nonsense', protocolAllowRemote: false, protocolOriginsText: '', protocolFolderText: '' })).toEqual({ error: expect.stringMatching(/^Agent Protocol, Listen on: 'nonsense' is not \[HOST:\]PORT/) });
    expect(agentProtocolFromDraft({ protocolListenText: '0.0.0.0:2024', protocolAllowRemote: false, protocolOriginsText: '', protocolFolderText: '' })).toEqual({ error: expect.stringMatching(/not a loopback address.*tick Allow other computers/) });
    expect(agentProtocolFromDraft({ protocolListenText: '0.0.0.0:2024', protocolAllowRemote: true, protocolOriginsText: '', protocolFolderText: '' })).toEqual({ agentProtocol: { listen: '0.0.0.0:2024', allowRemote: true, corsOrigins: [] } });
    expect(agentProtocolFromDraft({ protocolListenText: '', protocolAllowRemote: false, protocolOriginsText: 'localhost:3000', protocolFolderText: '' })).toEqual({ error: expect.stringMatching(/Allowed browser origins: 'localhost:3000' is not an origin/) });
  });
});
