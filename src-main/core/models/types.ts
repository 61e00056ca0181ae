// Provider-neutral model interface. The agent loop depends only on this file.

import type { FileChangeSummary } from '../tools/file-change';
import type { ToolResultFacts } from '../tools/result-facts';

/**
 * A media block. `image` parts are images (the name older threads were stored with);
 * `file` parts are audio, video and documents (SPEC §12). `name` is where it came from
 * (a virtual path or an attachment's name) and `bytes` its decoded size: with them a
 * block the model does not take becomes SPEC §12's one-line notice.
 */
export interface MediaBlock {
  mimeType: string;
  /** base64 */
  data: string;
  name?: string;
  bytes?: number;
}

export type ContentPart = { type: 'text'; text: string } | ({ type: 'image' } & MediaBlock) | ({ type: 'file' } & MediaBlock);

export type MediaPart = Exclude<ContentPart, { type: 'text' }>;

export function isMediaPart(part: ContentPart): part is MediaPart {
  return part.type !== 'text';
}

/**
 * What a provider returned with a part that it needs back on the next request (Gemini's
 * thought signatures, OpenAI's reasoning item ids), keyed by provider as the AI SDK has it.
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** A reasoning block of an answer, kept only to be sent back to the provider that wrote it. */
export interface ReasoningBlock {
  text: string;
  providerMetadata?: ProviderMetadata;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments; `{}` when `parseError` is set. */
  args: unknown;
  /** The raw argument text exactly as the model produced it. */
  argsText: string;
  /** Set when `argsText` is not valid JSON. The call is still reported, never dropped. */
  parseError?: string;
  /** Set when the person edited the call before it ran: the arguments the model proposed (`args` are what ran). */
  originalArgs?: unknown;
  /** Set with originalArgs when a PreToolUse hook's `updatedInput` changed the call (not the person). */
  editedBy?: 'hook';
  /** Sent back with the call on the next request (e.g. Gemini's thought signature). */
  providerMetadata?: ProviderMetadata;
}

export type ChatMessage =
  | { role: 'user'; content: string | ContentPart[]; note?: MessageNote }
  | {
      role: 'assistant';
      content: string;
      toolCalls?: ToolCall[];
      /** The provider that wrote it: reasoning and metadata go back only to that provider. */
      provider?: ProviderName;
      reasoning?: ReasoningBlock[];
      /** Provider metadata of the answer's text part (Gemini signs text too). */
      textMetadata?: ProviderMetadata;
    }
  /** `change` and the facts: what a write or edit did to its file, how a command ended…, kept for the window (providers never see them). */
  | ({ role: 'tool'; toolCallId: string; toolName: string; content: string | ContentPart[]; isError?: boolean; change?: FileChangeSummary } & ToolResultFacts);

/**
 * Marks a user-role message that Deepdesk put into the history to tell the model something
 * (e.g. that the person restored files), not a message the person wrote. Providers see only
 * the content; the window shows it as a notice.
 */
export interface MessageNote {
  id: string;
  kind: 'restore' | 'hook' | 'interrupted' | 'stopped' | 'worktree' | 'upload' | 'reviewer' | 'resume';
  /** What the window shows of it (the content is written for the model). */
  display: string;
  /** The restore checkpoint it reports, when there is one. */
  checkpointId?: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown> /* JSON Schema object */;
}

export interface Usage {
  /** All prompt tokens of the call, including the ones read from or written to a cache. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export type StopReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

export type ModelEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /** A finished reasoning block with what must be sent back with it. */
  | { type: 'reasoning-part'; reasoning: ReasoningBlock }
  /** Provider metadata of the text part that just ended. */
  | { type: 'text-metadata'; providerMetadata: ProviderMetadata }
  | { type: 'tool-call-start'; id: string; name: string }
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'finish'; stopReason: StopReason; usage: Usage };

/** A failed attempt that is about to be retried (for "Retrying in 8 s, attempt 2 of 5"). */
export interface ModelRetryNotice {
  /** The attempt that comes next, 1-based. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  /** Why the last attempt failed. */
  message: string;
}

export interface ModelRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal?: AbortSignal;
  maxOutputTokens?: number;
  /** Anthropic prompt caching: breakpoints on the system prompt, the last tool and the last two messages. */
  cacheBreakpoints?: boolean;
  /** Called before waiting to retry a failed attempt. */
  onRetry?: (notice: ModelRetryNotice) => void;
}

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * MIME types a model accepts: exact (`application/pdf`) or a whole top-level type
 * (`image/*`). A kind without an entry is not taken.
 */
export type MediaInput = readonly string[];

export type ProviderName = 'anthropic' | 'openai' | 'google' | 'openai-compatible' | 'ollama';

export interface ChatModel {
  /** 'provider:model', e.g. 'openai-compatible:qwen3'. */
  readonly id: string;
  readonly provider: ProviderName;
  /** Where it is served (its base URL), when known: a provider's quota breaker is per provider and endpoint. */
  readonly endpoint?: string | undefined;
  readonly contextWindow: number;
  /**
   * The media it takes (SPEC §12); a block of another type is replaced by its notice
   * before any request. Undefined: everything (test models).
   */
  readonly mediaInput?: MediaInput;
  /**
   * US dollars per million tokens (the table in code, or the person's price for this model);
   * null: unknown. Absent (test models): looked up in the table by id.
   */
  readonly price?: ModelPrice | null;
  /**
   * One model step. Yields deltas as they arrive and exactly one `finish` event last.
   * Throws ModelError / ContextOverflowError / AbortedError (see errors.ts).
   */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

export const PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai', 'google', 'openai-compatible', 'ollama'];

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
