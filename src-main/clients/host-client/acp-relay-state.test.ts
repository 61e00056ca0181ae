import { describe, expect, it } from 'vitest';
import { AcpRelayState } from './acp-relay-state';

const line = (value: object) => JSON.stringify({ jsonrpc: '2.0', ...value });
const parsed = (text: string | undefined) => JSON.parse(text!) as Record<string, unknown>;

describe('AcpRelayState', () => {
  it('gives the host’s requests ids of its own, and takes the editor’s answer back under the host’s id', () => {
    const relay = new AcpRelayState();
    const asked = parsed(relay.fromHost(line({ id: 3, method: 'session/request_permission', params: { sessionId: 's' } })));
    expect(asked.id).toMatch(/^deepdesk-1-/);
    const answer = parsed(relay.fromEditor(line({ id: asked.id, result: { outcome: { outcome: 'selected', optionId: 'allow_once' } } })));
    expect(answer.id).toBe(3);
    // Answered once: the same answer again is for nothing.
    expect(relay.fromEditor(line({ id: asked.id, result: {} }))).toBeUndefined();
    // A cancel of the host's names the relay's id.
    const again = parsed(relay.fromHost(line({ id: 4, method: 'fs/read_text_file', params: {} })));
    expect(parsed(relay.fromHost(line({ method: '$/cancel_request', params: { requestId: 4 } }))).params).toEqual({ requestId: again.id });
  });

  it('an answer meant for a host that died is dropped, never taken by the next host for its own request of the same id', () => {
    const relay = new AcpRelayState();
    const old = parsed(relay.fromHost(line({ id: 0, method: 'session/request_permission', params: {} })));
    relay.hostGone('killed');
    const fresh = parsed(relay.fromHost(line({ id: 0, method: 'session/request_permission', params: {} })));
    expect(fresh.id).not.toBe(old.id);
    expect(relay.fromEditor(line({ id: old.id, result: { outcome: { outcome: 'selected', optionId: 'allow_once' } } }))).toBeUndefined();
    expect(parsed(relay.fromEditor(line({ id: fresh.id, result: { outcome: { outcome: 'cancelled' } } }))).id).toBe(0);
  });

  it('answers the editor’s unanswered requests with an error when the host goes, and replays initialize and the open sessions (resumed) to the next', () => {
    const relay = new AcpRelayState();
    relay.fromEditor(line({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { terminal: true } } }));
    relay.fromHost(line({ id: 0, result: { protocolVersion: 1 } }));
    relay.fromEditor(line({ id: 1, method: 'session/new', params: { cwd: '/p', mcpServers: [] } }));
    relay.fromHost(line({ id: 1, result: { sessionId: 'a' } }));
    relay.fromEditor(line({ id: 2, method: 'session/load', params: { sessionId: 'b', cwd: '/p', mcpServers: [{ name: 'm' }] } }));
    relay.fromHost(line({ id: 2, result: {} }));
    relay.fromEditor(line({ id: 3, method: 'session/new', params: { cwd: '/p', mcpServers: [] } }));
    relay.fromHost(line({ id: 3, error: { code: -32602, message: 'no' } }));
    relay.fromEditor(line({ id: 4, method: 'session/close', params: { sessionId: 'a' } }));
    relay.fromHost(line({ id: 4, result: {} }));
    relay.fromEditor(line({ id: 5, method: 'session/prompt', params: { sessionId: 'b', prompt: [] } }));
    relay.fromEditor(line({ method: 'session/cancel', params: { sessionId: 'b' } }));

    const told = relay.hostGone('killed').map(parsed);
    expect(told).toEqual([{ jsonrpc: '2.0', id: 5, error: { code: -32603, message: expect.stringContaining('the agent host stopped (killed)') } }]);

    const replay = relay.replay().map(parsed);
    expect(replay.map((m) => [m.method, m.params])).toEqual([
      ['initialize', { protocolVersion: 1, clientCapabilities: { terminal: true } }],
      ['session/resume', { sessionId: 'b', cwd: '/p', mcpServers: [{ name: 'm' }] }],
    ]);
    expect(relay.replaying).toBe(true);
    // Their answers are the relay's: the editor never sees them.
    for (const m of replay) expect(relay.fromHost(line({ id: m.id, result: {} }))).toBeUndefined();
    expect(relay.replaying).toBe(false);
  });

  it('passes what is not JSON-RPC through unchanged (the host answers a malformed line itself)', () => {
    const relay = new AcpRelayState();
    expect(relay.fromEditor('{not json')).toBe('{not json');
    expect(relay.fromHost('[1,2]')).toBe('[1,2]');
    expect(relay.replay()).toEqual([]);
  });
});
