// The body of `deepdesk host` (SPEC §16): one agent host per data folder, serving its clients
// until it is idle, told to stop, or its socket is gone. Its stderr is host.log when a client
// started it (host/host-client/launch.ts).

import { ensureHostDir } from './paths';
import { HostAlreadyRunningError, socketAnswers, startHostServer } from './server';
import type { HostService } from '../base/host-service';
import type { ProtocolListenRequest } from '../contract/protocol-listen';

/** The Agent Protocol this host serves besides its socket (SPEC §19). */
export interface AgentHostProtocol {
  request: ProtocolListenRequest;
  /** Asked on the command line: a host that cannot listen stops (else, from Settings, it says why in its log and serves its socket). */
  required: boolean;
  /** Told the URL once it listens. */
  announce(url: string): void;
}

export interface AgentHostOptions {
  dataDir: string;
  idleMs: number;
  version: string;
  /** The environment the host was started with (the service's to read). */
  env: NodeJS.ProcessEnv;
  createService: () => Promise<HostService>;
  protocol?: AgentHostProtocol;
}

export type AgentHostOutcome = 'stopped' | 'already-running';

export async function runAgentHost(options: AgentHostOptions): Promise<AgentHostOutcome> {
  const log = (line: string): void => {
    process.stderr.write(`${new Date().toISOString()} [${process.pid}] ${line}\n`);
  };
  // A cheap look first: the service (databases, servers) is not made for a host that would not bind.
  // At the socket's checked place: one in a short folder someone else made is not this host's.
  if (await socketAnswers(ensureHostDir(options.dataDir).socket)) return 'already-running';
  const service = await options.createService();
  let server;
  try {
    server = await startHostServer({ dataDir: options.dataDir, service, idleMs: options.idleMs, version: options.version, log });
  } catch (err) {
    await service.close();
    if (err instanceof HostAlreadyRunningError) return 'already-running';
    throw err;
  }
  service.serving?.();
  log(`host up: pid ${process.pid}, version ${options.version}, socket ${server.paths.socket}`);
  if (options.protocol !== undefined) {
    try {
      if (service.listenProtocol === undefined) throw new Error('this host cannot serve the Agent Protocol');
      options.protocol.announce(await service.listenProtocol(options.protocol.request));
    } catch (err) {
      if (options.protocol.required) {
        await server.close();
        throw err;
      }
      log(`Settings › Agent Protocol: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const stop = (): void => void server.close();
  // The host outlives the terminal that started it.
  const ignore = (): void => {};
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', ignore);
  try {
    await server.closed;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('SIGHUP', ignore);
  }
  return 'stopped';
}
