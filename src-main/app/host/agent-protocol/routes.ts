// Every route of the Agent Protocol (SPEC §19), each family in its own module.

import { assistantRoutes } from './assistants-routes';
import type { ProtocolContext } from './context';
import type { Route } from './http';
import { metaRoutes } from './meta-routes';
import { storeRoutes } from './store-routes';

export function protocolRoutes(context: ProtocolContext): Route[] {
  return [...metaRoutes(context), ...assistantRoutes(context), ...storeRoutes(context)];
}
