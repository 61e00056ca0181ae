// Settings › Agent Protocol (SPEC §19): what the agent host listens on when `deepdesk host` is
// given no --listen (a host started for the window included). Off while `listen` is empty.

import { z } from 'zod';
import { isAbsoluteFolder } from '../../core/backends/mounts/mount-spec';
import { corsOriginError, parseListenAddress } from './listen-address';

export { corsOriginError, listenRefusal, parseListenAddress } from './listen-address';

export const agentProtocolSettingsSchema = z
  .object({
    /** `[HOST:]PORT`; empty: the host does not listen. */
    listen: z.string().max(300),
    /** Other computers may connect (an address that is not loopback). */
    allowRemote: z.boolean(),
    /** Browser origins allowed to call (CORS), as `scheme://host[:port]`. */
    corsOrigins: z.array(z.string().max(300)).max(100),
    /**
     * The runs' folder when a request names none (absolute; the host's --folder wins). Deep
     * Agents' async subagents name none: without it (or --folder) their runs are refused.
     */
    folder: z.string().min(1).max(4096).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.listen.trim() !== '') {
      const address = parseListenAddress(value.listen);
      if ('error' in address) ctx.addIssue({ code: 'custom', path: ['listen'], message: address.error });
    }
    if (value.folder !== undefined) {
      const why = protocolFolderError(value.folder);
      if (why !== undefined) ctx.addIssue({ code: 'custom', path: ['folder'], message: why });
    }
    value.corsOrigins.forEach((origin, i) => {
      const why = corsOriginError(origin);
      if (why !== undefined) ctx.addIssue({ code: 'custom', path: ['corsOrigins', i], message: why });
    });
  });
export type AgentProtocolSettings = z.infer<typeof agentProtocolSettingsSchema>;

/** What is wrong with a default folder as the person gives it, or undefined. */
export function protocolFolderError(text: string): string | undefined {
  return isAbsoluteFolder(text) ? undefined : `'${text}' is not an absolute path`;
}

/** What Settings › Agent Protocol shows of the host's protocol now: where it listens (none: off) and its key. */
export const agentProtocolStatusSchema = z.object({
  /** The URLs the agent host serves the protocol at now (a flag's, Settings', a `host --listen`'s). */
  listening: z.array(z.string()),
  /** The key clients send as `x-api-key` (made when first needed). */
  key: z.string(),
});
export type AgentProtocolStatus = z.infer<typeof agentProtocolStatusSchema>;

/** The agent host answers these itself (its listeners, its key): not a folder's app. */
export const agentProtocolMethods = {
  'agentProtocol.status': { params: z.object({}).strict(), result: agentProtocolStatusSchema },
  /** Replaces the key: the old one is refused from the next request on, by every host of the data folder. */
  'agentProtocol.rotateKey': { params: z.object({}).strict(), result: agentProtocolStatusSchema },
} as const;
export type AgentProtocolMethodName = keyof typeof agentProtocolMethods;
