// The contract's shapes for MCP servers and folder trust (SPEC §9, §10). Renderer-safe: zod only.
import { z } from 'zod';
import { TRUST_ENTRY_KINDS } from '../../core/config/trust-entry';
import { folderPluginRequestSchema } from './plugins';

export const mcpStatusSchema = z.enum(['starting', 'connected', 'failed', 'needs-sign-in', 'not-trusted', 'disabled']);

export const mcpServerSchema = z.object({
  name: z.string(),
  type: z.enum(['stdio', 'http', 'sse']),
  /** Which file it comes from: the person's mcp.json, the folder's .mcp.json, or --mcp-config. */
  source: z.enum(['user', 'project', 'cli']),
  file: z.string(),
  status: mcpStatusSchema,
  /** `Connected · 3 tools`, `Starting`, `Failed`, `Needs sign-in`, `Not trusted`, `Disabled`. */
  statusText: z.string(),
  /** The command line (stdio) or the URL. */
  target: z.string(),
  /** Stdio servers: whether it runs in the sandbox. */
  sandboxed: z.boolean().optional(),
  error: z.string().optional(),
  tools: z.array(z.object({ name: z.string(), qualifiedName: z.string(), description: z.string(), readOnly: z.boolean() })),
  /** The tail of its log. */
  log: z.string(),
  /** The entry as written in its file (what Edit starts from). */
  entry: z.record(z.string(), z.unknown()),
});
export type McpServerDto = z.infer<typeof mcpServerSchema>;

export const mcpListSchema = z.object({
  servers: z.array(mcpServerSchema),
  /** Lines naming a file (and field) that could not be read. */
  problems: z.array(z.string()),
});
export type McpListDto = z.infer<typeof mcpListSchema>;

export const trustEntrySchema = z.object({
  kind: z.enum(TRUST_ENTRY_KINDS),
  /** `mcp:NAME` for a server of the folder's .mcp.json. */
  key: z.string(),
  label: z.string(),
  file: z.string(),
  /** The digest of this entry alone as shown: `trust.grant` with `keys: [key]` sends it back (Settings' `Trust`). */
  digest: z.string(),
  /** It was trusted before and changed since: the line shown when it was trusted (`''` when not known). */
  changedFrom: z.string().optional(),
});

export const trustStateSchema = z.object({
  folder: z.string(),
  /** What the folder's configuration would load and is not (or no longer) trusted. */
  untrusted: z.array(trustEntrySchema),
  /** The person said `Not now` in this session. */
  dismissed: z.boolean(),
  /** The digest of the list shown: `trust.grant` sends it back, and trusts only while it still holds. */
  digest: z.string(),
  /** Why the last `Trust folder` trusted nothing (the configuration changed since it was shown). */
  note: z.string().optional(),
  /** The plugins the folder's settings ask for and the person has not installed, offered for install. */
  plugins: z.array(folderPluginRequestSchema),
});
export type TrustStateDto = z.infer<typeof trustStateSchema>;

const serverRef = z.object({ name: z.string().min(1).max(200) });

export const mcpMethods = {
  'mcp.list': { params: z.object({}).strict(), result: mcpListSchema },
  /** Adds or replaces a server in the person's mcp.json (`previousName` renames). */
  'mcp.save': { params: serverRef.extend({ entry: z.record(z.string(), z.unknown()), previousName: z.string().optional() }), result: mcpListSchema },
  'mcp.remove': { params: serverRef, result: mcpListSchema },
  'mcp.setEnabled': { params: serverRef.extend({ enabled: z.boolean() }), result: mcpListSchema },
  'mcp.signIn': { params: serverRef, result: mcpListSchema },
  'mcp.restart': { params: serverRef, result: mcpListSchema },
  /** What `@` can attach: the connected servers' resources (as `server:URI`). */
  'mcp.resources': {
    params: z.object({ query: z.string().max(500).optional() }),
    result: z.array(z.object({ server: z.string(), uri: z.string(), name: z.string(), description: z.string().optional() })),
  },
  /** The servers' prompts, as slash commands. */
  'mcp.prompts': {
    params: z.object({}).strict(),
    result: z.array(z.object({ command: z.string(), description: z.string().optional(), arguments: z.array(z.object({ name: z.string(), required: z.boolean() })) })),
  },
  'trust.get': { params: z.object({}).strict(), result: trustStateSchema },
  /**
   * `Trust folder`: records trust in every entry of the list that was shown (its `digest`), then
   * loads them; when the folder's configuration changed since, trusts nothing and answers with
   * the new list and a `note`. With `keys`, the same for those entries only.
   */
  'trust.grant': {
    params: z
      .object({
        digest: z.string().min(1).max(200),
        /**
         * Only these entries of the list (Settings' `Trust` on one server; `digest` is then that
         * entry's own). What they load starts in the background: the answer does not wait for it.
         */
        keys: z.array(z.string().min(1).max(300)).min(1).max(100).optional(),
      })
      .strict(),
    result: trustStateSchema,
  },
  /** `Not now`: the question is not put again in this session (until the configuration changes). */
  'trust.dismiss': { params: z.object({}).strict(), result: trustStateSchema },
} as const;

export const mcpEvents = {
  'mcp.changed': z.object({}),
  'trust.changed': trustStateSchema,
} as const;
