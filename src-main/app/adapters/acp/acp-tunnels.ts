// `deepdesk acp` in the agent host (SPEC §14, §16): the editor's protocol stream is carried
// over the host's socket (`acp.in` requests in, `acp.out` events out) and the ACP agent runs
// here, in the host, so its sessions' runs outlive the editor. The agent itself is given by
// editors-adapter.ts: this file knows streams and connections.

import { z } from 'zod';
import { sessionFlagsRequest } from '../../base/session-flag-schemas';
import { asHostError, HostRequestError, type HostConnection } from '../../base/host-service';
import { hostMethod, type HostAdapter } from '../../host/host-adapters';
import { textPieces } from '../../host/protocol';
import type { RunningAcpAgent } from './acp-agent';

export const acpOpenParams = sessionFlagsRequest.extend({
  /** `--folder`, absolute, or the command's working folder. */
  folder: z.string().min(1),
  /** Whether `--folder` was given (`--trust` then trusts that folder only; else the first session's). */
  folderGiven: z.boolean(),
});
export type AcpOpenParams = z.output<typeof acpOpenParams>;

export const acpInParams = z.object({ data: z.string() });

export interface AcpStreams {
  /** The editor's bytes. */
  input: ReadableStream<Uint8Array>;
  /** The agent's bytes for the editor. */
  output: WritableStream<Uint8Array>;
  /** One line for the person (the `acp` command prints it on its stderr while it is attached). */
  say(line: string): void;
}

/** Opens an editor's agent; rejects with a ContractError (`bad_request`: bad usage) or any error. */
export type OpenAcpAgent = (streams: AcpStreams, params: AcpOpenParams) => Promise<RunningAcpAgent>;

/** At most this many characters of the agent's output in one `acp.out` event (frames stay far under 32 MiB). */
const MAX_OUT_CHARS = 4 * 1024 * 1024;

interface Tunnel {
  input: ReadableStreamDefaultController<Uint8Array>;
  ended: boolean;
}

/** Editors' agents as the host serves them: `acp.open` starts one, `acp.in` brings the editor's bytes. */
export class HostAcp implements HostAdapter {
  private readonly tunnels = new Map<string, Tunnel>();
  /** Every agent until it closed: an editor's that went stays while its prompts finish. */
  private readonly agents = new Set<RunningAcpAgent>();
  private readonly encoder = new TextEncoder();
  readonly methods = {
    'acp.open': hostMethod(acpOpenParams, (connection, params) => this.open(connection, params)),
    'acp.in': hostMethod(acpInParams, (connection, params) => this.input(connection, params.data)),
  };

  constructor(private readonly options: { open: OpenAcpAgent; log: (line: string) => void }) {}

  async open(connection: HostConnection, params: AcpOpenParams): Promise<{ ok: true }> {
    if (this.tunnels.has(connection.id)) throw new HostRequestError('this connection already carries an editor', 'bad_request');
    const decoder = new TextDecoder();
    let tunnel!: Tunnel;
    const input = new ReadableStream<Uint8Array>({
      start: (controller) => {
        tunnel = { input: controller, ended: false };
      },
    });
    const send = (text: string) => {
      for (const data of textPieces(text, MAX_OUT_CHARS)) connection.send('acp.out', { data });
    };
    const output = new WritableStream<Uint8Array>({
      // Once the editor has gone, what its agent still says goes nowhere (its requests fail).
      write: (chunk) => send(decoder.decode(chunk, { stream: true })),
    });
    this.tunnels.set(connection.id, tunnel);
    const say = (line: string) => (connection.closed ? this.options.log(`acp: ${line}`) : connection.send('acp.say', { line }));
    const endInput = () => {
      this.tunnels.delete(connection.id);
      end(tunnel);
    };
    let agent: RunningAcpAgent;
    try {
      agent = await this.options.open({ input, output, say }, params);
    } catch (err) {
      endInput();
      throw asHostError(err);
    }
    this.agents.add(agent);
    void agent.closed
      .catch((err: unknown) => this.options.log(`an editor's agent did not close cleanly: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => this.agents.delete(agent));
    connection.onClose(endInput);
    return { ok: true };
  }

  /** The editor's bytes, in the order they came. */
  input(connection: HostConnection, data: string): { ok: true } {
    const tunnel = this.tunnels.get(connection.id);
    if (tunnel === undefined || tunnel.ended) throw new HostRequestError('this connection carries no editor (acp.open first)', 'bad_request');
    tunnel.input.enqueue(this.encoder.encode(data));
    return { ok: true };
  }

  busy(): boolean {
    return [...this.agents].some((a) => a.busy());
  }

  working(threadId: string): boolean {
    return [...this.agents].some((a) => a.working(threadId));
  }

  async stop(threadId: string): Promise<boolean> {
    for (const agent of this.agents) if (await agent.stop(threadId)) return true;
    return false;
  }

  async close(): Promise<void> {
    for (const tunnel of this.tunnels.values()) end(tunnel);
    this.tunnels.clear();
    await Promise.all([...this.agents].map((a) => a.close().catch(() => undefined)));
    this.agents.clear();
  }
}

/** The editor's bytes end: no more come in. */
function end(tunnel: Tunnel): void {
  if (tunnel.ended) return;
  tunnel.ended = true;
  try {
    tunnel.input.close();
  } catch {
    // Already closed.
  }
}
