// Middleware hooks around the agent loop, in the shape of Deep Agents' wrap_model_call /
// wrap_tool_call. Each concern (eviction, summarization, todos, subagents, approval,
// caching, memory, dangling-call repair) is one small module implementing some of these.

import type { MemoryUse } from '../memories/memory-types';
import type { ChatMessage, ProviderMetadata, ReasoningBlock, StopReason, ToolCall, Usage } from '../models/types';
import type { AgentTool, ToolOutput } from '../tools/tool';
import type { ModelCallRequest, RunContext } from './run-context';

export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage: Usage;
  /** Reasoning blocks the provider needs back with this answer. */
  reasoning?: ReasoningBlock[];
  /** Provider metadata of the answer's text. */
  textMetadata?: ProviderMetadata;
  /** What the call cost (USD), when the model's price is known. */
  costUsd?: number;
}

export interface ToolCallInfo {
  call: ToolCall;
  /** Every tool call of the same model turn (e.g. to refuse two write_todos in one turn). */
  turnCalls: readonly ToolCall[];
}

export interface TurnToolResult {
  call: ToolCall;
  output: ToolOutput;
}

/** One named part of the system prompt: `name` says what added it (`base`, `memory`, `skills`, …). */
export interface SystemPart {
  name: string;
  text: string;
  /** A memory this part carries (SPEC §25 "Used in"). */
  memory?: MemoryUse;
}

export type SystemSection = string | readonly SystemPart[];

export type ModelCallHandler = (request: ModelCallRequest) => Promise<ModelTurn>;
export type ToolCallHandler = (call: ToolCall) => Promise<ToolOutput>;

export interface Middleware {
  readonly name: string;
  /** Tools this middleware adds (e.g. write_todos, task). */
  tools?(ctx: RunContext): AgentTool[];
  /**
   * What this middleware adds to the system prompt: one section (named after the middleware),
   * or several named ones (e.g. each memory file), or nothing where its feature does not apply.
   */
  systemPrompt?(ctx: RunContext): Promise<SystemSection | undefined> | SystemSection | undefined;
  /**
   * Transforms a new user message before it is stored (e.g. evicting a huge one). Throwing
   * PromptRefusedError keeps the message out of the history: the person is told why.
   */
  onUserMessage?(ctx: RunContext, message: ChatMessage): Promise<ChatMessage>;
  /**
   * The agent answered without tool calls and would stop: an instruction to go on with
   * (sent as a note), or undefined. `continued`: how many times in a row it already went on.
   */
  onStop?(ctx: RunContext, stop: { text: string; continued: number }): Promise<string | undefined>;
  /** Runs before every model call; may rewrite the state (e.g. summarize). */
  beforeModel?(ctx: RunContext, request: ModelCallRequest): Promise<void>;
  /** The provider said the context overflowed: shrink it; the loop retries once. Returns true if it did. */
  onContextOverflow?(ctx: RunContext): Promise<boolean>;
  /** The person asked to compact the history now (`/compact`). Returns true if it did. */
  compactNow?(ctx: RunContext): Promise<boolean>;
  wrapModelCall?(ctx: RunContext, request: ModelCallRequest, next: ModelCallHandler): Promise<ModelTurn>;
  wrapToolCall?(ctx: RunContext, info: ToolCallInfo, next: ToolCallHandler): Promise<ToolOutput>;
  /**
   * Whether the result of this finished call waits for afterToolCalls before it is emitted
   * (e.g. a change not yet pushed), so the window, `run --json` and ACP get its final output once.
   */
  holdsToolResult?(ctx: RunContext, call: ToolCall, output: ToolOutput): boolean;
  /**
   * Runs once every tool call of one model turn ran, before their results go into the
   * history (the step boundary: e.g. a git mount commits and pushes the step). Returns the
   * outputs to use instead (same order), or undefined to keep them.
   */
  afterToolCalls?(ctx: RunContext, results: readonly TurnToolResult[]): Promise<ToolOutput[] | undefined>;
  /**
   * A check that needs no person (e.g. a read-only mode refusing writes): the reason the
   * call is refused, or undefined. Runs before anyone is asked about the call (so nobody is
   * asked about a call that cannot run) and again right before it runs.
   */
  precheck?(ctx: RunContext, info: ToolCallInfo): Promise<string | undefined> | string | undefined;
}

/** A new message is not sent to the model (a UserPromptSubmit hook refused it): `message` says why, for the person. */
export class PromptRefusedError extends Error {
  override readonly name = 'PromptRefusedError';
}

export function chainModelCall(middleware: readonly Middleware[], ctx: RunContext, inner: ModelCallHandler): ModelCallHandler {
  return middleware.reduceRight<ModelCallHandler>(
    (next, m) => (m.wrapModelCall ? (request) => m.wrapModelCall!(ctx, request, next) : next),
    inner,
  );
}

export function chainToolCall(middleware: readonly Middleware[], ctx: RunContext, turnCalls: readonly ToolCall[], inner: ToolCallHandler): ToolCallHandler {
  return middleware.reduceRight<ToolCallHandler>(
    (next, m) => (m.wrapToolCall ? (call) => m.wrapToolCall!(ctx, { call, turnCalls }, next) : next),
    inner,
  );
}
