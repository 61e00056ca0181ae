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

export function protocolRoutes(context: ProtocolContext): Route[] {
  // What the thread routes are told of their threads' runs (status, interrupts, cancel on delete).
  // A thread created over /threads exists for runs before its first run makes the Deepdesk thread.
  const records = new ProtocolThreadRecords(context.db);
  const runs = new ProtocolRuns(context, (threadId) => records.get(threadId) !== undefined);
  return [...metaRoutes(context), ...assistantRoutes(context), ...threadRoutes(context, runs), ...runRoutes(context, runs), ...storeRoutes(context)];
}
