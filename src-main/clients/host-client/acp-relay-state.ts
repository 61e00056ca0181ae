// What `deepdesk acp` keeps of the editor's conversation while it relays it to the agent host
// (acp-relay.ts), so that a host that dies costs the editor nothing but the runs it had:
// - every request of the editor still unanswered is answered with an error when the host goes;
// - the editor's `initialize` and its open sessions are replayed to the next host
//   (`session/resume`: no history sent again), their answers kept from the editor;
// - requests the host sends the editor carry ids of the relay's own, with the host's
//   generation in them: an answer meant for a host that is gone (an "allow" included) is
//   dropped, never taken by the next host for a request of its own that had the same id.

type Id = string | number;

interface Message {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

interface SessionOpen {
  cwd: unknown;
  mcpServers: unknown;
}

const CANCEL_REQUEST = '$/cancel_request';
const OPENING = new Set(['session/new', 'session/load', 'session/resume']);
/** JSON-RPC's "internal error". */
const INTERNAL_ERROR = -32603;

export class AcpRelayState {
  /** The editor's requests the host has not answered: id key → method and params. */
  private readonly inFlight = new Map<string, { id: Id; method: string; params: unknown }>();
  private readonly sessions = new Map<string, SessionOpen>();
  private initialize: unknown;
  /** The host's requests to the editor: the relay's id → the host's id (this generation only). */
  private readonly hostRequests = new Map<string, Id>();
  private generation = 1;
  private counter = 0;
  /** Replayed requests whose answers are the relay's, not the editor's. */
  private readonly replayed = new Set<string>();

  /** An editor's line as it goes to the host, or undefined when it is for no host (an answer to a gone one). */
  fromEditor(line: string): string | undefined {
    const message = parse(line);
    if (message === undefined) return line;
    if (typeof message.method === 'string') {
      if (isId(message.id)) this.inFlight.set(key(message.id), { id: message.id, method: message.method, params: message.params });
      if (message.method === 'initialize') this.initialize = message.params;
      return line;
    }
    // An answer to a request of the host's: only the current host's, under its own id.
    if (!isId(message.id)) return line;
    const hostId = typeof message.id === 'string' ? this.hostRequests.get(message.id) : undefined;
    if (hostId === undefined) return undefined;
    this.hostRequests.delete(message.id as string);
    return JSON.stringify({ ...message, id: hostId });
  }

  /** A host's line as it goes to the editor, or undefined when it is the relay's own (a replay's answer). */
  fromHost(line: string): string | undefined {
    const message = parse(line);
    if (message === undefined) return line;
    if (typeof message.method === 'string') {
      if (isId(message.id)) {
        const relayId = `deepdesk-${this.generation}-${++this.counter}`;
        this.hostRequests.set(relayId, message.id);
        return JSON.stringify({ ...message, id: relayId });
      }
      if (message.method === CANCEL_REQUEST && isRecord(message.params) && isId(message.params.requestId)) {
        const hostId = message.params.requestId;
        const relayId = [...this.hostRequests].find(([, id]) => id === hostId)?.[0];
        if (relayId === undefined) return undefined;
        return JSON.stringify({ ...message, params: { ...message.params, requestId: relayId } });
      }
      return line;
    }
    if (!isId(message.id)) return line;
    const k = key(message.id);
    if (this.replayed.delete(k)) return undefined;
    const request = this.inFlight.get(k);
    this.inFlight.delete(k);
    if (request !== undefined && message.error === undefined) this.answered(request.method, request.params, message.result);
    return line;
  }

  /** Whether the answers of a replay are still awaited (the editor's lines wait meanwhile). */
  get replaying(): boolean {
    return this.replayed.size > 0;
  }

  /** The host went: an error for each request of the editor's it never answered; its requests are void. */
  hostGone(reason: string): string[] {
    const lines = [...this.inFlight.values()].map(({ id }) =>
      JSON.stringify({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `the agent host stopped (${reason}); a run that was going was interrupted` } }),
    );
    this.inFlight.clear();
    this.hostRequests.clear();
    this.replayed.clear();
    this.generation++;
    return lines;
  }

  /** What the next host is told first: the editor's initialize, then each open session resumed. */
  replay(): string[] {
    if (this.initialize === undefined) return [];
    const request = (method: string, params: unknown) => {
      const id = `deepdesk-replay-${this.generation}-${++this.counter}`;
      this.replayed.add(key(id));
      return JSON.stringify({ jsonrpc: '2.0', id, method, params });
    };
    return [
      request('initialize', this.initialize),
      ...[...this.sessions].map(([sessionId, open]) => request('session/resume', { sessionId, cwd: open.cwd, mcpServers: open.mcpServers })),
    ];
  }

  private answered(method: string, params: unknown, result: unknown): void {
    if (OPENING.has(method)) {
      const sessionId = method === 'session/new' ? (isRecord(result) ? result.sessionId : undefined) : isRecord(params) ? params.sessionId : undefined;
      if (typeof sessionId === 'string' && isRecord(params)) this.sessions.set(sessionId, { cwd: params.cwd, mcpServers: params.mcpServers ?? [] });
    } else if (method === 'session/close' && isRecord(params) && typeof params.sessionId === 'string') {
      this.sessions.delete(params.sessionId);
    }
  }
}

function parse(line: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? (value as Message) : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is Id {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function key(id: Id): string {
  return typeof id === 'string' ? `s:${id}` : `n:${id}`;
}
