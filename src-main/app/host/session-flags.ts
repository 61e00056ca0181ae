// The flags a command-line session hands the agent host with its request (`deepdesk run`'s
// runs.start, `deepdesk acp`'s acp.open), as the host checks them: the command's own flags,
// its working folder and its environment.

import { z } from 'zod';
import { sandboxProviderSchema } from '../contract/sandboxes';

/** `--sandbox PROVIDER [--sandbox-id ID]` (SPEC §18). */
export const sandboxRequest = z.object({ provider: sandboxProviderSchema.optional(), id: z.string().min(1).max(200).optional() });

export const sessionFlags = z.object({
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
  contextWindow: z.number().int().positive().optional(),
  evictChars: z.number().int().positive().optional(),
  /** `--mount` flags as given, relative folders from `cwd`. */
  mounts: z.array(z.string()),
  memoriesStore: z.string().optional(),
  /** `--mcp-config` files, absolute. */
  mcpConfig: z.array(z.string()),
  trust: z.boolean(),
  /** The command's working folder. */
  cwd: z.string().min(1),
  /** The command's environment: keys, base URLs, what commands and hooks inherit. */
  env: z.record(z.string(), z.string()),
  sandbox: sandboxRequest.optional(),
});
