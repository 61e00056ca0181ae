// Every route of the Agent Protocol (SPEC §19), each family in its own module.

import type { ProtocolContext } from './context';
import type { Route } from './http';

export function protocolRoutes(context: ProtocolContext): Route[] {
  void context;
  return [];
}
