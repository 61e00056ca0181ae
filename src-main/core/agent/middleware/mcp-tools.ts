// The MCP servers' tools in the agent (SPEC §10): each one an agent tool with the server's
// own schema; past 10% of the context window they are deferred behind tool_search, and the
// ones a thread found (or called) are offered from the next step on.
import { z } from 'zod';
import { toolSpec } from '../model-step';
import type { Middleware } from '../middleware';
import type { RunContext } from '../run-context';
import { countToolTokens } from '../token-count';
import type { ThreadState } from '../types';
import { defineTool, text, type AgentTool } from '../../tools/tool';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, searchResultText, searchTools } from '../../extensions/mcp/tool-search';
import type { McpHubApi, McpToolInfo } from '../../extensions/mcp/types';

export const TOOL_SEARCH = 'tool_search';
/** The share of the context window the MCP tools' schemas may take before they are deferred. */
export const DEFER_SHARE = 0.1;
const DEFAULT_CONTEXT_WINDOW = 170_000;

export interface McpMiddlewareOptions {
  /** Overrides the model's context window (tokens). */
  contextWindow?: number;
}

/** Arguments are the server's to check; they must at least be an object. */
const ARGS = z.record(z.string(), z.unknown());
const never = new AbortController().signal;

export function mcpMiddleware(hub: McpHubApi, options: McpMiddlewareOptions = {}): Middleware {
  // One agent tool per tool the hub lists (a re-list makes new infos, so new tools).
  const made = new WeakMap<McpToolInfo, { offered: AgentTool; deferred: AgentTool }>();
  const agentTools = (info: McpToolInfo): { offered: AgentTool; deferred: AgentTool } => {
    let pair = made.get(info);
    if (pair === undefined) {
      const base = {
        name: info.qualifiedName,
        description: info.description,
        schema: ARGS,
        jsonSchema: objectSchema(info.inputSchema),
      };
      const offered = defineTool({ ...base, run: (args, ctx) => hub.callTool(info.qualifiedName, args, ctx.signal ?? never) });
      const deferred = defineTool({
        ...base,
        deferred: true,
        // A model that names a deferred tool exactly gets it run (the server checks the
        // arguments) and offered from then on, rather than one more step spent on a search.
        run: (args, ctx) => {
          if (ctx.run) load(ctx.run.state, [info.qualifiedName]);
          return hub.callTool(info.qualifiedName, args, ctx.signal ?? never);
        },
      });
      pair = { offered, deferred };
      made.set(info, pair);
    }
    return pair;
  };

  // Whether the current list is deferred, for the list it was measured on.
  let measured: { infos: McpToolInfo[]; window: number; defer: boolean } | null = null;
  const deferring = (infos: McpToolInfo[], window: number): boolean => {
    if (measured === null || measured.window !== window || measured.infos.length !== infos.length || measured.infos.some((t, i) => t !== infos[i])) {
      const tokens = infos.reduce((n, info) => n + countToolTokens(toolSpec(agentTools(info).offered)), 0);
      measured = { infos, window, defer: tokens > window * DEFER_SHARE };
    }
    return measured.defer;
  };
  const windowOf = (ctx: RunContext): number => options.contextWindow ?? (ctx.model.contextWindow > 0 ? ctx.model.contextWindow : DEFAULT_CONTEXT_WINDOW);

  const search = defineTool({
    name: TOOL_SEARCH,
    description:
      'Search the MCP tools that are not shown to you yet, by what they do (words from their name or description), or select them by exact name with `select:NAME1,NAME2`. The tools it returns are callable from your next step.',
    schema: z.object({
      query: z.string().describe('Words describing the tool you need, or select:NAME1,NAME2'),
      limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe(`How many tools to return (default ${DEFAULT_SEARCH_LIMIT})`),
    }),
    async run(args, ctx) {
      const infos = hub.tools();
      const matches = searchTools(infos, args.query, args.limit ?? DEFAULT_SEARCH_LIMIT);
      if (ctx.run) load(ctx.run.state, matches.map((m) => m.qualifiedName));
      return text(searchResultText(matches, args.query, infos.length));
    },
  });

  return {
    name: 'mcp',
    tools(ctx) {
      const infos = hub.tools();
      if (infos.length === 0) return [];
      if (!deferring(infos, windowOf(ctx))) return infos.map((info) => agentTools(info).offered);
      const loaded = new Set(ctx.state.mcpLoadedTools ?? []);
      return [...infos.map((info) => (loaded.has(info.qualifiedName) ? agentTools(info).offered : agentTools(info).deferred)), search];
    },
    systemPrompt(ctx) {
      const infos = hub.tools();
      if (infos.length === 0 || !deferring(infos, windowOf(ctx))) return undefined;
      const servers = [...new Set(infos.map((t) => t.server))];
      return [
        '## MCP tools',
        `The MCP servers ${servers.join(', ')} offer ${infos.length} tools, too many to show you all at once. Use \`${TOOL_SEARCH}\` to find the ones a task needs (by what they do); those it returns are callable from your next step and stay available in this conversation.`,
      ].join('\n');
    },
  };
}

/** Remembers tools as found, in the thread (so they stay offered, across restarts too). */
function load(state: ThreadState, names: readonly string[]): void {
  const current = state.mcpLoadedTools ?? [];
  const fresh = names.filter((n) => !current.includes(n));
  if (fresh.length > 0) state.mcpLoadedTools = [...current, ...fresh];
}

/** The server's schema as it is; one without an object type (some old servers) says it takes an object. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === undefined ? { type: 'object', ...schema } : schema;
}
