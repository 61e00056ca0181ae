// Turning the Agent Protocol on (SPEC §19): what the person asked for (a `deepdesk host` flag,
// Settings › Agent Protocol, or a running host asked over its socket), checked, and a server
// of the protocol's routes on the host's services. Nothing listens unless asked.

import { resolve } from 'node:path';
import { isSshFolder } from '../../../core/backends/remote/ssh-target';
import { realPathOf } from '../../../core/fs/real-path';
import type { RecentFolders } from '../../places/recent-folders';
import type { ThreadStore } from '../../threads/thread-store';
import type { ProtocolContext } from './context';
import { startProtocolServer, type ProtocolServer, type Route } from './http';
import { checkListenRequest, type ProtocolListenRequest } from '../../contract/protocol-listen';
import { protocolKey, protocolKeyReader } from './protocol-key';

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
