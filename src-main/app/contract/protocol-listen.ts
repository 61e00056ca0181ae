// What a person asks the agent host to listen on for the Agent Protocol (SPEC §19): the
// `deepdesk host --listen` flags, Settings › Agent Protocol, and the socket's `protocol.listen`.

import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { corsOriginError, listenRefusal, parseListenAddress, type ListenAddress } from './listen-address';

/** What the person asked for; also the socket's `protocol.listen` parameters. */
export const protocolListenRequest = z.object({
  /** `[HOST:]PORT` */
  listen: z.string().min(1).max(300),
  allowRemote: z.boolean().default(false),
  corsOrigins: z.array(z.string().max(300)).max(100).default([]),
  /** The runs' folder when a request names none (absolute). */
  folder: z.string().min(1).max(4096).optional(),
});
export type ProtocolListenRequest = z.input<typeof protocolListenRequest>;

/** The request's address, or why it cannot be listened on (one line). */
export function checkListenRequest(request: ProtocolListenRequest): { address: ListenAddress } | { error: string } {
  const address = parseListenAddress(request.listen);
  if ('error' in address) return address;
  const refusal = listenRefusal(address, request.allowRemote ?? false);
  if (refusal !== undefined) return { error: refusal };
  for (const origin of request.corsOrigins ?? []) {
    const why = corsOriginError(origin);
    if (why !== undefined) return { error: why };
  }
  if (request.folder !== undefined && !isAbsolute(request.folder)) return { error: `--folder ${request.folder} is not an absolute path` };
  return { address };
}

