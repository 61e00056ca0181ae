// `/ok` and `/info` (SPEC §19): open to anyone who can reach the port, as the reference's are.
// `flags` say what this server offers: assistants yes, crons no, no LangSmith tracing.

import type { ProtocolContext } from './context';
import { json, type Route } from './http';

export function metaRoutes(context: ProtocolContext): Route[] {
  return [
    { method: 'GET', pattern: '/ok', open: true, handle: async () => json({ ok: true }) },
    {
      method: 'GET',
      pattern: '/info',
      open: true,
      handle: async () =>
        json({
          version: context.version,
          context: 'js',
          flags: { assistants: true, crons: false, langsmith: false, langsmith_tracing_replicas: false },
        }),
    },
  ];
}
