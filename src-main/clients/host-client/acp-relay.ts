// `deepdesk acp` as a client of the agent host (SPEC §14, §16): the editor's lines go to the
// host (`acp.in`), the agent's come back (`acp.out`) and what it has for the person comes as
// `acp.say`. The agent and its sessions run in the host, so an editor that goes leaves their
// runs going. A host that dies is told in one line; the next one is started and told what
// the editor had set up (acp-relay-state.ts).

import type { AcpOpenParams } from '../../app/adapters/acp/acp-tunnels';
import { textPieces } from '../../app/host/protocol';
import { AcpRelayState } from './acp-relay-state';
import { HostClient, type HostConnectOptions } from './client';

export interface AcpRelayOptions {
  connect: HostConnectOptions;
  open: AcpOpenParams;
  /** The editor's bytes (stdin). */
  input: NodeJS.ReadableStream;
  /** Writes to the editor (stdout). */
  write(text: string): void;
  /** One line for the person (stderr). */
  say(line: string): void;
  /** Ends the relay as if the editor had gone (a signal). */
  signal?: AbortSignal;
}

const RECONNECT_ATTEMPTS = 5;
/** An editor's line larger than this goes in pieces (a frame is at most 32 MiB). */
const MAX_IN_CHARS = 4 * 1024 * 1024;

/**
 * Relays until the editor's input ends (0) or the host cannot be reached again (1). Rejects
 * when the first host refuses the command (HostRequestError: `bad_request` is bad usage).
 */
export async function relayAcp(options: AcpRelayOptions): Promise<number> {
  const state = new AcpRelayState();
  let client: HostClient | undefined;
  /** The host has the editor's stream open and the replay queued: the editor's lines may go. */
  let ready = false;
  let ending = false;
  /** The editor's lines waiting for a host (reconnecting, or a replay not yet answered). */
  let waiting: string[] = [];
  let last: Promise<unknown> = Promise.resolve();
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const send = (line: string) => {
    const host = client;
    if (host === undefined) return;
    for (const data of textPieces(`${line}\n`, MAX_IN_CHARS)) last = host.request('acp.in', { data }).catch(() => undefined);
  };
  const flush = () => {
    if (client === undefined || !ready || state.replaying) return;
    const lines = waiting;
    waiting = [];
    for (const line of lines) {
      const out = state.fromEditor(line);
      if (out !== undefined) send(out);
    }
  };

  const connect = async (): Promise<void> => {
    ready = false;
    const next = await HostClient.connect(options.connect);
    let partial = '';
    next.onEvent((event, payload) => {
      if (client !== next) return;
      if (event === 'acp.say') {
        const { line } = payload as { line?: unknown };
        if (typeof line === 'string') options.say(line);
        return;
      }
      if (event !== 'acp.out') return;
      const { data } = payload as { data?: unknown };
      if (typeof data !== 'string') return;
      const lines = (partial + data).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (line.trim() === '') continue;
        const out = state.fromHost(line);
        if (out !== undefined) options.write(`${out}\n`);
      }
      flush();
    });
    client = next;
    try {
      await next.request('acp.open', options.open);
    } catch (err) {
      client = undefined;
      await next.close();
      throw err;
    }
    next.onClose((reason) => {
      if (ending || client !== next) return;
      client = undefined;
      for (const line of state.hostGone(reason)) options.write(`${line}\n`);
      options.say(`the agent host stopped (${reason}); starting it again…`);
      void reconnect();
    });
    // The replay goes first: an editor's line sent before it would reach a host that has not
    // been told `initialize` nor the sessions.
    for (const line of state.replay()) send(line);
    ready = true;
    flush();
  };

  const reconnect = async () => {
    for (let attempt = 1; attempt <= RECONNECT_ATTEMPTS && !ending; attempt++) {
      try {
        await connect();
        options.say('the agent host is back');
        return;
      } catch (err) {
        if (attempt === RECONNECT_ATTEMPTS) {
          options.say(`the agent host could not be started again: ${err instanceof Error ? err.message : String(err)}`);
          ending = true;
          finish(1);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  };

  await connect();

  let buffered = '';
  const editorGone = () => {
    if (ending) return;
    if (buffered.trim() !== '') waiting.push(buffered);
    buffered = '';
    flush();
    ending = true;
    // What was sent reaches the host before the connection ends; the sessions' runs go on there.
    void last.finally(async () => {
      await client?.close();
      finish(0);
    });
  };
  options.input.setEncoding('utf8');
  options.input.on('data', (chunk: string) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop()!;
    for (const line of lines) if (line.trim() !== '') waiting.push(line);
    flush();
  });
  options.input.once('end', editorGone);
  options.input.once('close', editorGone);
  options.signal?.addEventListener('abort', editorGone, { once: true });
  return finished;
}
