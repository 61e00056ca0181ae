// One model call of a step: the request built (tools, system parts, middleware), the answer
// streamed, a context overflow shrunk once and retried; and the same request previewed.

import type { MemoryUse } from '../memories/memory-types';
import { z } from 'zod';
import { AbortedError, ContextOverflowError } from '../models/errors';
import { ZERO_USAGE, type ChatMessage, type ChatModel, type ModelRetryNotice, type ProviderMetadata, type ReasoningBlock, type ToolCall, type ToolSpec, type Usage } from '../models/types';
import { ReadGuard } from '../tools/read-guard';
import type { AgentTool } from '../tools/tool';
import { chainModelCall, type ModelTurn, type SystemPart } from './middleware';
import { meteredStream, recordUsage } from './model-call';
import { modelView } from './model-view';
import type { ModelCallRequest, RunContext } from './run-context';
import { openRun, type AgentDefinition } from './run-options';
import type { ThreadState } from './types';

const specCache = new WeakMap<AgentTool, ToolSpec>();
/** A zod schema's JSON Schema (read only once made: requests and token counts only read it). */
const parametersCache = new WeakMap<object, Record<string, unknown>>();

export function toolSpec(tool: AgentTool): ToolSpec {
  let spec = specCache.get(tool);
  if (spec === undefined) {
    if (tool.jsonSchema !== undefined) {
      spec = { name: tool.name, description: tool.description, parameters: tool.jsonSchema };
    } else {
      // A run makes its tools anew; their schemas are mostly the same objects run after run.
      let parameters = parametersCache.get(tool.schema);
      if (parameters === undefined) {
        const schema = z.toJSONSchema(tool.schema, { unrepresentable: 'any' }) as Record<string, unknown>;
        delete schema.$schema;
        parameters = stripHugeBounds(schema);
        parametersCache.set(tool.schema, parameters);
      }
      spec = { name: tool.name, description: tool.description, parameters };
    }
    specCache.set(tool, spec);
  }
  return spec;
}

/** zod writes Number.MAX_SAFE_INTEGER bounds on ints; they are noise for a model. */
function stripHugeBounds(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const prop of Object.values(props ?? {})) {
    if (prop.maximum === Number.MAX_SAFE_INTEGER) delete prop.maximum;
  }
  return schema;
}

/** The tools of this step: the base tools and every middleware's (deferred ones are callable, not offered). */
export function stepTools(def: AgentDefinition, ctx: RunContext): AgentTool[] {
  return [...def.tools, ...def.middleware.flatMap((m) => m.tools?.(ctx) ?? [])];
}

export function offeredSpecs(tools: readonly AgentTool[]): ToolSpec[] {
  return tools.filter((tool) => tool.deferred !== true).map(toolSpec);
}

/** The system prompt's parts in order: the base prompt, then what each middleware adds where its feature applies. */
async function systemParts(def: AgentDefinition, ctx: RunContext): Promise<SystemPart[]> {
  const parts: SystemPart[] = [{ name: 'base', text: def.systemPrompt }];
  for (const m of def.middleware) {
    const section = await m.systemPrompt?.(ctx);
    if (typeof section === 'string') parts.push({ name: m.name, text: section });
    else if (section) parts.push(...section);
  }
  return parts.filter((part) => part.text !== '');
}

async function buildRequest(def: AgentDefinition, ctx: RunContext, specs: ToolSpec[]): Promise<{ request: ModelCallRequest; systemParts: SystemPart[] }> {
  const parts = await systemParts(def, ctx);
  const memories = parts.flatMap((part) => (part.memory !== undefined ? [part.memory] : []));
  return { request: { system: parts.map((part) => part.text).join('\n\n'), messages: modelView(ctx.state), tools: specs, ...(memories.length > 0 ? { memories } : {}) }, systemParts: parts };
}

/** What the next model call of a thread would send, and the parts of its system prompt. */
export interface RequestPreview {
  /** Joined by blank lines they are `request.system`. */
  systemParts: SystemPart[];
  /** As the model would get it: after every middleware's wrapModelCall. */
  request: ModelCallRequest;
}

/**
 * The request a run of `def` would send next with `input` added to the thread, built as the
 * run builds it (the same tools, system parts and middleware), without calling the model,
 * running anything or changing the thread. Hooks on the person's message are not run.
 */
export async function previewRequest(def: AgentDefinition, state: ThreadState, input: ChatMessage | null): Promise<RequestPreview> {
  const preview: ThreadState = { ...state, messages: input === null ? [...state.messages] : [...state.messages, input] };
  const { ctx } = openRun(def, preview, null, { emit: () => undefined, persist: async () => undefined, guard: new ReadGuard() });
  const { request, systemParts } = await buildRequest(def, ctx, offeredSpecs(stepTools(def, ctx)));
  let sent: ModelCallRequest = request;
  await chainModelCall(def.middleware, ctx, async (final) => {
    sent = final;
    return { text: '', toolCalls: [], stopReason: 'stop', usage: ZERO_USAGE };
  })(request);
  return { systemParts, request: sent };
}

export async function callModel(def: AgentDefinition, ctx: RunContext, specs: ToolSpec[]): Promise<ModelTurn> {
  let overflowHandled = false;
  for (;;) {
    let { request } = await buildRequest(def, ctx, specs);
    for (const m of def.middleware) {
      if (m.beforeModel) {
        await m.beforeModel(ctx, request);
      }
    }
    // beforeModel hooks may have summarized: look again.
    request = { ...request, messages: modelView(ctx.state) };
    const call = chainModelCall(def.middleware, ctx, (req) => streamTurn(ctx, req));
    try {
      const turn = await call(request);
      recordUsage(ctx, turn.usage, turn.costUsd, ctx.countRequestTokens(request));
      return turn;
    } catch (err) {
      if (err instanceof ContextOverflowError && !overflowHandled) {
        overflowHandled = true;
        let shrunk = false;
        for (const m of def.middleware) if (m.onContextOverflow && (await m.onContextOverflow(ctx))) shrunk = true;
        if (shrunk) continue;
      }
      throw err;
    }
  }
}

/** The memories a request carries: its prompt's and those its tool results read (each memory once, at the version it carried last). */
function memoriesCarried(request: ModelCallRequest): MemoryUse[] {
  const uses = new Map<string, MemoryUse>();
  for (const use of request.memories ?? []) uses.set(use.path, use);
  for (const m of request.messages) if (m.role === 'tool' && m.memory !== undefined) uses.set(m.memory.path, m.memory);
  return [...uses.values()];
}

async function streamTurn(ctx: RunContext, request: ModelCallRequest): Promise<ModelTurn> {
  let text = '';
  const toolCalls: ToolCall[] = [];
  let usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let costUsd: number | undefined;
  let stopReason: ModelTurn['stopReason'] = 'other';
  const reasoning: ReasoningBlock[] = [];
  let textMetadata: ProviderMetadata | undefined;
  try {
    const onRetry = (notice: ModelRetryNotice): void => ctx.emit({ type: 'retry', ...notice });
    const metered = meteredStream(ctx, { ...request, signal: ctx.signal, onRetry }, {
      purpose: 'agent',
      memories: memoriesCarried(request),
      promptTokens: () => ctx.countRequestTokens(request),
      onUsage: (_usage, cost) => (costUsd = cost),
    });
    for await (const event of metered) {
      switch (event.type) {
        case 'text-delta':
          text += event.text;
          ctx.emit({ type: 'text', text: event.text });
          break;
        case 'tool-call':
          toolCalls.push(event.call);
          ctx.emit({ type: 'tool_call', id: event.call.id, name: event.call.name, args: event.call.args, ...(event.call.parseError ? { parseError: event.call.parseError } : {}) });
          break;
        case 'reasoning-part':
          reasoning.push(event.reasoning);
          break;
        case 'text-metadata':
          textMetadata = { ...textMetadata, ...event.providerMetadata };
          break;
        case 'finish':
          usage = event.usage;
          stopReason = event.stopReason;
          break;
        default:
          break;
      }
    }
  } catch (err) {
    // Keep what was streamed before a Stop: the person saw it, so the history has it.
    if ((err instanceof AbortedError || ctx.signal.aborted) && text !== '') {
      ctx.state.messages.push(assistantMessage(ctx.model, text, { toolCalls: [], reasoning, ...(textMetadata ? { textMetadata } : {}) }));
    }
    throw err;
  }
  return { text, toolCalls, stopReason, usage, reasoning, ...(textMetadata ? { textMetadata } : {}), ...(costUsd !== undefined ? { costUsd } : {}) };
}

/**
 * The answer as stored: with the provider that wrote it and what that provider needs back
 * on the next request (reasoning blocks, the text's metadata; a call's is on the call).
 */
export function assistantMessage(model: ChatModel, text: string, turn: Pick<ModelTurn, 'toolCalls' | 'reasoning' | 'textMetadata'>): ChatMessage {
  return {
    role: 'assistant',
    content: text,
    ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}),
    provider: model.provider,
    ...(turn.reasoning !== undefined && turn.reasoning.length > 0 ? { reasoning: turn.reasoning } : {}),
    ...(turn.textMetadata !== undefined ? { textMetadata: turn.textMetadata } : {}),
  };
}
