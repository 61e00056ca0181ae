// Every route of the Agent Protocol (SPEC §19), each family in its own module.

import { assistantRoutes } from './assistants-routes';
import type { ProtocolContext } from './context';
import type { Route } from './http';
import { metaRoutes } from './meta-routes';
import { ProtocolRuns } from './protocol-runs';
import { ProtocolThreadRecords } from './protocol-threads';
import { runRoutes } from './runs-routes';
import { storeRoutes } from './store-routes';
import { threadRoutes } from './threads-routes';

/** The host's one ProtocolRuns (listen.ts's protocolAdapter), shared by its listeners. */
export function protocolRuns(host: Omit<ProtocolContext, 'defaultFolder' | 'folderRefusal'>): ProtocolRuns {
  // A thread created over the protocol before its first run is known to the runs too.
  const records = new ProtocolThreadRecords(host.db);
  return new ProtocolRuns(host, (threadId) => records.get(threadId) !== undefined);
}

/** A listener's routes, on the host's runs seen with the listener's folders. */
export function protocolRoutes(context: ProtocolContext, hostRuns: ProtocolRuns): Route[] {
  // What the thread routes are told of their threads' runs (status, interrupts, cancel on delete).
  const runs = hostRuns.forListener(context);
  return [...metaRoutes(context), ...assistantRoutes(context), ...threadRoutes(context, runs), ...runRoutes(context, runs), ...storeRoutes(context)];
}
