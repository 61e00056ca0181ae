// Turning the Agent Protocol on (SPEC §19): what the person asked for (a `deepdesk host` flag,
// Settings › Agent Protocol, or a running host asked over its socket), checked, and a server
// of the protocol's routes on the host's services. Nothing listens unless asked. The host is
// handed it as its protocol adapter (protocolAdapter: app/host/host-adapters.ts).

import { resolve } from 'node:path';
import { isSshFolder } from '../../../core/backends/remote/ssh-target';
import { realPathOf } from '../../../core/fs/real-path';
import { HostRequestError } from '../../base/host-service';
import { hostMethod, type HostParts, type ProtocolAdapter } from '../../host/host-adapters';
import { RecentFolders } from '../../places/recent-folders';
import type { ThreadStore } from '../../threads/thread-store';
import type { ProtocolContext } from './context';
import { startProtocolServer, type ProtocolServer, type Route } from './http';
import { checkListenRequest, protocolListenRequest, type ProtocolListenRequest } from '../../contract/protocol-listen';
import { protocolKey, protocolKeyReader, rotateProtocolKey } from './protocol-key';
import { protocolRoutes, protocolRuns } from './routes';

/** The context every listener shares: all but its own default folder. */
export type ProtocolHostContext = Omit<ProtocolContext, 'defaultFolder' | 'folderRefusal'> & {
  /** Whether the person opened `folder` (absolute, resolved) in Deepdesk before: a folder of the same real path. */
  openedBefore(folder: string): boolean;
};

/** Starts a server of the protocol for `request` (checked again: it may come over the socket), serving `routes` given its context. */
export async function listenProtocol(
  host: ProtocolHostContext,
  request: ProtocolListenRequest,
  routes: (context: ProtocolContext) => Route[],
  /** Who else hears the server's lines (a refused origin…) besides the host's log: the `host --listen` that asked for it. */
  tell?: (line: string) => void,
): Promise<ProtocolServer> {
  const checked = checkListenRequest(request);
  if ('error' in checked) throw new Error(checked.error);
  // Made now, not at the first request: a host that cannot keep a key does not listen.
  protocolKey(host.dataDir);
  const defaultFolder = request.folder !== undefined ? resolve(request.folder) : undefined;
  const { openedBefore, ...shared } = host;
  const context: ProtocolContext = {
    ...shared,
    defaultFolder,
    folderRefusal(folder) {
      // The same folder is the same real path (as trust keeps it): a link to an opened folder is
      // that folder, and names nothing its client could not name; a link elsewhere is not it.
      const path = resolve(folder);
      if ((defaultFolder !== undefined && realPathOf(path) === realPathOf(defaultFolder)) || openedBefore(path)) return undefined;
      return `folder ${folder} was never opened in Deepdesk: open it once, or start the host with --folder ${folder}`;
    },
  };
  return startProtocolServer({
    host: checked.address.host,
    port: checked.address.port,
    key: protocolKeyReader(host.dataDir),
    corsOrigins: request.corsOrigins ?? [],
    allowRemote: request.allowRemote ?? false,
    routes: routes(context),
    log: (line) => {
      host.log(line);
      tell?.(line);
    },
  });
}

/** A folder the person opened in the window (its recent folders) or that has a thread of its own, by its real path. */
export function openedInDeepdesk(recent: () => RecentFolders, threads: ThreadStore): (folder: string) => boolean {
  return (folder) => {
    if (recent().list().some((f) => f.path === folder) || threads.threadsIn(folder).some((t) => t.folder === folder)) return true;
    const real = realPathOf(folder);
    const opened = new Set([...recent().list().map((f) => f.path), ...threads.list().map((t) => t.folder)]);
    return [...opened].some((path) => !isSshFolder(path) && realPathOf(path) === real);
  };
}

/**
 * The host's Agent Protocol: one set of protocol runs for every listener (the same queues
 * whichever a client calls), the listeners — held until the host stops (a flag, Settings),
 * or while a connection stays (`host --listen` while a host runs) — and their key.
 */
export function protocolAdapter(host: HostParts): ProtocolAdapter {
  const { dataDir, log } = host;
  let recent: RecentFolders | undefined;
  const context: ProtocolHostContext = { ...host, openedBefore: openedInDeepdesk(() => (recent ??= new RecentFolders(dataDir)), host.threads) };
  const protocol = protocolRuns(context);
  /** While any listens, the host is busy. */
  const listening = new Set<ProtocolServer>();
  const urls = () => [...listening].map((server) => server.url);
  /** Listens as asked; `already`: this host serves that address already (a second `host --listen` on it), nothing new was started. */
  const listen = async (request: ProtocolListenRequest, tell?: (line: string) => void): Promise<{ server: ProtocolServer; already: boolean }> => {
    const checked = checkListenRequest(request);
    if ('error' in checked) throw new HostRequestError(checked.error, 'bad_request');
    const { host: name, port } = checked.address;
    const address = `${name.includes(':') ? `[${name}]` : name}:${port}`;
    const serving = port === 0 ? undefined : [...listening].find((s) => s.url === `http://${address}`);
    if (serving !== undefined) {
      log(`Agent Protocol: already listening on ${address} (asked again)`);
      return { server: serving, already: true };
    }
    let server: ProtocolServer;
    try {
      server = await listenProtocol(context, request, (listener) => protocolRoutes(listener, protocol), tell);
    } catch (err) {
      const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      const why = inUse
        ? `another program already listens on ${address} (not this data folder's agent host): choose another port, or stop that program`
        : err instanceof Error
          ? err.message
          : String(err);
      log(`Agent Protocol: cannot listen on ${address}: ${why}`);
      throw new HostRequestError(`the Agent Protocol cannot listen on ${request.listen}: ${why}`, 'failed');
    }
    listening.add(server);
    log(`Agent Protocol: listening on ${server.url}`);
    return { server, already: false };
  };
  const unlisten = async (server: ProtocolServer): Promise<void> => {
    if (!listening.delete(server)) return;
    await server.close();
    log(`Agent Protocol: stopped listening on ${server.url}`);
  };
  return {
    methods: {
      // Serve the Agent Protocol for as long as this connection stays (`deepdesk host --listen` while a host runs).
      'protocol.listen': hostMethod(protocolListenRequest, async (connection, request) => {
        // What the server says (a refused browser origin…) is told to the `host --listen` that asked for it too.
        const { server, already } = await listen(request, (line) => {
          if (!connection.closed) connection.send('protocol.log', { line });
        });
        // Served already (Settings', another `host --listen`'s): it stays as it is; this connection holds nothing.
        if (!already) connection.onClose(() => void unlisten(server));
        return { url: server.url, already };
      }),
    },
    busy: () => listening.size > 0,
    // Protocol runs another host left pending or running: that host is gone.
    serving: () => protocol.interruptUnfinished(),
    listen: async (request) => (await listen(request)).server.url,
    status: () => ({ listening: urls(), key: protocolKey(dataDir) }),
    rotateKey: () => {
      const key = rotateProtocolKey(dataDir);
      log('Agent Protocol: the key was rotated in Settings (the old one is refused from now on)');
      return { listening: urls(), key };
    },
    async close() {
      await Promise.all([...listening].map(unlisten));
      await protocol.close();
      recent?.close();
    },
  };
}
