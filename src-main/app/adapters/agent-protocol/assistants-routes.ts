// Assistants (SPEC §19): `deepdesk`, Deepdesk's own agent, and one per subagent a run in the
// host's default folder can be (Settings' subagents, then the Markdown agents: the person's,
// the plugins', the folder's `.claude/agents` once trusted), found as that folder's session
// finds them, so a run on one resolves it by the same name. Shaped as the reference server
// shapes the assistant it registers for each graph: the id is the UUID v5 of the graph id in
// the reference's namespace, and the graph id itself names it too (Deep Agents' async
// subagents start runs with `graphId` as the assistant).
// They are read at each request; the protocol cannot create, change or delete them (405,
// saying where they are configured): Settings and the agents' files stay where they are kept.

import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SubagentSpec } from '../../../core/agent/middleware/subagents';
import { folderSubagents } from '../../extensions/extensions-service';
import { DEEPDESK_GRAPH_ID, type ProtocolContext } from './context';
import { json, ProtocolHttpError, type ProtocolReply, type Route } from './http';
import { contains, parseBody } from './validate';

/** The reference's namespace for the assistant ids of registered graphs (graph/load.mjs NAMESPACE_GRAPH). */
const NAMESPACE_GRAPH = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

/** Assistants exist since the host started (the reference: since it registered its graphs). */
const REGISTERED_AT = new Date().toISOString();

/** An assistant as the reference answers it. */
export interface ProtocolAssistant {
  assistant_id: string;
  graph_id: string;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface ResolvedAssistant {
  assistant: ProtocolAssistant;
  /** The subagent that runs instead of Deepdesk's own agent; undefined for `deepdesk`. */
  subagent: SubagentSpec | undefined;
}

/** Every assistant now: `deepdesk` first, then the subagents in the order `task` offers them. */
export function listAssistants(context: Pick<ProtocolContext, 'dataDir' | 'defaultFolder' | 'runs'>): ResolvedAssistant[] {
  const fromSettings = context.runs.savedSettings().subagents;
  const all = context.defaultFolder === undefined ? fromSettings : folderSubagents({ dataDir: context.dataDir, folder: context.defaultFolder }, fromSettings);
  const subagents = all.filter((s) => s.name !== DEEPDESK_GRAPH_ID);
  return [
    { assistant: assistantOf(DEEPDESK_GRAPH_ID, "Deepdesk's agent: works in a folder with its files, shell and memories."), subagent: undefined },
    ...subagents.map((subagent) => ({ assistant: assistantOf(subagent.name, subagent.description), subagent })),
  ];
}

/** The assistant a request names by its id or its graph id (a run's `assistant_id`); 404 as the reference when none. */
export function resolveAssistant(context: Pick<ProtocolContext, 'dataDir' | 'defaultFolder' | 'runs'>, id: string): ResolvedAssistant {
  const found = listAssistants(context).find(({ assistant }) => assistant.assistant_id === id || assistant.graph_id === id);
  if (found === undefined) throw new ProtocolHttpError(404, 'Assistant not found');
  return found;
}

function assistantOf(graphId: string, description: string): ProtocolAssistant {
  return {
    assistant_id: assistantIdOf(graphId),
    graph_id: graphId,
    config: {},
    context: {},
    metadata: { created_by: 'system' },
    name: graphId,
    description,
    created_at: REGISTERED_AT,
    updated_at: REGISTERED_AT,
    version: 1,
  };
}

/** The id of the assistant registered for `graphId`, as the reference makes it. */
export function assistantIdOf(graphId: string): string {
  return uuidV5(graphId, NAMESPACE_GRAPH);
}

/** RFC 4122 name-based UUID (SHA-1), as `@langchain/core/utils/uuid` v5. */
function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const searchRequest = z.object({
  metadata: z.record(z.string(), z.unknown()).optional(),
  graph_id: z.string().optional(),
  name: z.string().optional(),
  limit: z.number().int().gte(1).lte(1000).optional(),
  offset: z.number().int().gte(0).optional(),
  sort_by: z.enum(['assistant_id', 'graph_id', 'created_at', 'updated_at', 'name']).optional(),
  sort_order: z.enum(['asc', 'desc']).optional(),
  select: z.array(z.string()).optional(),
});

const countRequest = searchRequest.pick({ metadata: true, graph_id: true, name: true });

const versionsRequest = z.object({
  limit: z.number().min(1).max(1000).optional(),
  offset: z.number().min(0).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const latestRequest = z.object({ version: z.number() });

type Filter = z.output<typeof countRequest>;

function matching(all: readonly ResolvedAssistant[], filter: Filter): ProtocolAssistant[] {
  return all
    .map(({ assistant }) => assistant)
    .filter((a) => filter.graph_id === undefined || a.graph_id === filter.graph_id)
    .filter((a) => filter.name === undefined || a.name.toLowerCase().includes(filter.name.toLowerCase()))
    .filter((a) => filter.metadata === undefined || contains(a.metadata, filter.metadata));
}

function sorted(assistants: ProtocolAssistant[], by: keyof ProtocolAssistant | undefined, order: 'asc' | 'desc' | undefined): ProtocolAssistant[] {
  if (by === undefined) return assistants;
  const sign = order === 'asc' ? 1 : -1;
  return [...assistants].sort((a, b) => sign * String(a[by]).localeCompare(String(b[by])));
}

const notHere = (what: string): ProtocolReply => {
  throw new ProtocolHttpError(405, `Assistants cannot be ${what} over the Agent Protocol: they are Deepdesk's agent, the subagents in Settings › Subagents and the agents' Markdown files (.claude/agents).`);
};

export function assistantRoutes(context: ProtocolContext): Route[] {
  /** `body` about the assistant `id` (404 when there is none). */
  const ofKnown = (id: string, body: unknown): ProtocolReply => {
    resolveAssistant(context, id);
    return json(body);
  };
  return [
    {
      method: 'POST',
      pattern: '/assistants/search',
      handle: async ({ body }) => {
        const q = parseBody(searchRequest, body);
        const limit = q.limit ?? 10;
        const offset = q.offset ?? 0;
        const found = sorted(matching(listAssistants(context), q), q.sort_by, q.sort_order);
        const page = found.slice(offset, offset + limit).map((a) => (q.select === undefined ? a : Object.fromEntries(Object.entries(a).filter(([k]) => q.select!.includes(k)))));
        const headers: Record<string, string> = { 'x-pagination-total': String(found.length) };
        if (offset + page.length < found.length) headers['x-pagination-next'] = String(offset + page.length);
        return json(page, 200, headers);
      },
    },
    { method: 'POST', pattern: '/assistants/count', handle: async ({ body }) => json(matching(listAssistants(context), parseBody(countRequest, body)).length) },
    { method: 'GET', pattern: '/assistants/:assistant_id', handle: async ({ params }) => json(resolveAssistant(context, params.assistant_id!).assistant) },
    { method: 'GET', pattern: '/assistants/:assistant_id/graph', handle: async ({ params }) => ofKnown(params.assistant_id!, AGENT_GRAPH) },
    {
      method: 'GET',
      pattern: '/assistants/:assistant_id/schemas',
      handle: async ({ params }) => json({ graph_id: resolveAssistant(context, params.assistant_id!).assistant.graph_id, ...AGENT_SCHEMAS }),
    },
    { method: 'GET', pattern: '/assistants/:assistant_id/subgraphs', handle: async ({ params }) => ofKnown(params.assistant_id!, {}) },
    {
      method: 'POST',
      pattern: '/assistants/:assistant_id/versions',
      handle: async ({ params, body }) => {
        const { offset = 0, metadata } = parseBody(versionsRequest, body);
        const { assistant } = resolveAssistant(context, params.assistant_id!);
        const versions = offset === 0 && (metadata === undefined || contains(assistant.metadata, metadata)) ? [assistant] : [];
        if (versions.length === 0) throw new ProtocolHttpError(404, `Assistant "${assistant.assistant_id}" not found.`);
        return json(versions);
      },
    },
    {
      method: 'POST',
      pattern: '/assistants/:assistant_id/latest',
      handle: async ({ params, body }) => {
        const { version } = parseBody(latestRequest, body);
        const { assistant } = resolveAssistant(context, params.assistant_id!);
        if (version !== assistant.version) throw new ProtocolHttpError(404, 'Assistant version not found');
        return json(assistant);
      },
    },
    { method: 'POST', pattern: '/assistants', handle: async () => notHere('created') },
    { method: 'PATCH', pattern: '/assistants/:assistant_id', handle: async () => notHere('changed') },
    { method: 'DELETE', pattern: '/assistants/:assistant_id', handle: async () => notHere('deleted') },
  ];
}

// What the graph and schema views show: the agent loop as Deep Agents' `createAgent` draws it,
// and the input a run reads (only `messages`; the folder, mode and model from `configurable`).
const AGENT_GRAPH = {
  nodes: [
    { id: '__start__', type: 'schema', data: '__start__' },
    { id: 'model_request', type: 'runnable', data: { id: [DEEPDESK_GRAPH_ID, 'model_request'], name: 'model_request' } },
    { id: 'tools', type: 'runnable', data: { id: [DEEPDESK_GRAPH_ID, 'tools'], name: 'tools' } },
    { id: '__end__', type: 'schema', data: '__end__' },
  ],
  edges: [
    { source: '__start__', target: 'model_request' },
    { source: 'model_request', target: 'tools', conditional: true },
    { source: 'model_request', target: '__end__', conditional: true },
    { source: 'tools', target: 'model_request' },
  ],
};

const MESSAGES_SCHEMA = {
  type: 'object',
  properties: { messages: { type: 'array', items: { type: 'object' } } },
  required: ['messages'],
};

const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    folder: { type: 'string', description: "The folder the run works in: one opened in Deepdesk before, or the host's --folder." },
    mode: { type: 'string', enum: ['ask', 'edit', 'auto', 'plan'] },
    model: { type: 'string', description: 'provider:model' },
  },
};

const AGENT_SCHEMAS = {
  input_schema: MESSAGES_SCHEMA,
  output_schema: MESSAGES_SCHEMA,
  state_schema: MESSAGES_SCHEMA,
  config_schema: CONFIG_SCHEMA,
  context_schema: CONFIG_SCHEMA,
};
