// Every route of the Agent Protocol (SPEC §19), each family in its own module.

import type { ProtocolContext, ThreadActivity } from './context';
import type { Route } from './http';
import { threadRoutes } from './threads-routes';

// replaced by ProtocolRuns
const noActivity: ThreadActivity = { status: () => 'idle', interrupts: () => [], cancelAll: async () => {} };

export function protocolRoutes(context: ProtocolContext): Route[] {
  return [...threadRoutes(context, noActivity)];
}
