import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { MediaInput, ChatModel, ModelEvent, ModelPrice, ModelRequest, ProviderMetadata, ProviderName, StopReason, ToolCall, Usage } from './types';
import { MediaNotTakenError, ModelError } from './errors';
import {
  mayBeAttachmentRejection, refusedKinds, rejectionReason, rememberRefused, rememberRejected, standInMedia, withoutRefused, withoutRejected,
} from './media-refusals';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../text/json-depth';
import { streamWithRetry } from './retry';
import type { RetryInfo, RetryPolicy } from './retry';
import { toSdkPrompt, toSdkTools } from './to-sdk-prompt';
import type { PromptMapping } from './to-sdk-prompt';

export interface AiSdkChatModelOptions {
  id: string;
  provider: ProviderName;
  contextWindow: number;
  mediaInput?: MediaInput;
  /** USD per million tokens; null: unknown. */
  price?: ModelPrice | null;
  /** Where the model is served (its base URL): what it refused is remembered per id and endpoint. */
  endpoint?: string;
  /** A provider model from @ai-sdk/* (createOpenAI().chat(...), createAnthropic()(...), ...), loaded at the first call (create-model.ts). */
  languageModel: () => Promise<LanguageModelV4>;
  mapping: PromptMapping;
  retry?: RetryPolicy;
  /** Used when the request sets no maxOutputTokens. */
  defaultMaxOutputTokens?: number;
  /** Call-level provider options, e.g. { openai: { store: false } }. */
  providerOptions?: SharedV4ProviderOptions;
}

/**
 * A ChatModel over an AI SDK provider model. It calls the provider's `doStream` directly rather
 * than `streamText`: that is exactly one HTTP call with no tool execution, no step loop and no SDK
 * retries, and it hands us the raw tool-call argument text so malformed JSON is reported, not
 * "repaired" or turned into a tool error.
 */
export class AiSdkChatModel implements ChatModel {
  readonly id: string;
  readonly provider: ProviderName;
  readonly endpoint: string | undefined;
  readonly contextWindow: number;
  readonly price: ModelPrice | null | undefined;
  private readonly options: AiSdkChatModelOptions;

  constructor(options: AiSdkChatModelOptions) {
    this.id = options.id;
    this.provider = options.provider;
    this.endpoint = options.endpoint;
    this.contextWindow = options.contextWindow;
    this.price = options.price;
    this.options = options;
  }

  /** What it takes: the table's (or the person's) input, less the kinds it refused in this process. */
  get mediaInput(): MediaInput | undefined {
    return withoutRefused(this.refusalKey, this.options.mediaInput);
  }

  private get refusalKey(): string {
    return `${this.id} ${this.options.endpoint ?? ''}`;
  }

  /**
   * A refusal of media ("image input is not supported") never ends the run: the refused kinds
   * are remembered, sent as notices from now on, and the request goes once more.
   */
  async *stream(original: ModelRequest): AsyncGenerator<ModelEvent> {
    const request = { ...original, messages: withoutRejected(this.refusalKey, original.messages) };
    try {
      yield* this.attempt(request);
    } catch (err) {
      if (err instanceof MediaNotTakenError) {
        // The body, not the message: the message starts with the model id, which may say "vision".
        const kinds = refusedKinds(err.body ?? err.message, request.messages, this.mediaInput);
        if (kinds.length === 0) throw err;
        rememberRefused(this.refusalKey, kinds);
        yield* this.attempt(request);
        return;
      }
      yield* this.withoutRejectedMedia(request, err);
    }
  }

  /**
   * A client error on a request that carries media may be the provider rejecting one of them
   * (a file that is not the image it claims): the blocks of the kinds it names go once more
   * as stand-ins, and when that is answered they are remembered as rejected, so the thread
   * that holds them is never refused for them again. Otherwise the first error stands.
   */
  private async *withoutRejectedMedia(request: ModelRequest, err: unknown): AsyncGenerator<ModelEvent> {
    if (!mayBeAttachmentRejection(err)) throw err;
    const kinds = refusedKinds(err.body ?? err.message, request.messages, this.mediaInput);
    if (kinds.length === 0) throw err;
    const reason = rejectionReason(err);
    const { messages, replaced } = standInMedia(request.messages, kinds, this.mediaInput, reason);
    let answered = false;
    try {
      for await (const event of this.attempt({ ...request, messages })) {
        answered = true;
        yield event;
      }
    } catch (again) {
      if (!answered) throw err;
      throw again;
    }
    rememberRejected(this.refusalKey, replaced, reason);
  }

  private attempt(request: ModelRequest): AsyncIterable<ModelEvent> {
    const call = this.callOptions(request);
    return streamWithRetry(() => streamOnce(this.options.languageModel, call), {
      label: this.id,
      provider: this.provider,
      policy: this.options.retry,
      signal: request.signal,
      ...(request.onRetry ? { onRetry: retryNotifier(request.onRetry) } : {}),
    });
  }

  /** The provider call options for a request (exposed for tests and debugging). */
  callOptions(request: ModelRequest): LanguageModelV4CallOptions {
    const cache = this.options.mapping.anthropic && request.cacheBreakpoints === true;
    const maxOutputTokens = request.maxOutputTokens ?? this.options.defaultMaxOutputTokens;
    return {
      prompt: toSdkPrompt(request, this.options.mapping, { provider: this.provider, mediaInput: this.mediaInput }),
      ...(request.tools.length > 0 ? { tools: toSdkTools(request.tools, cache), toolChoice: { type: 'auto' } } : {}),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      ...(request.signal ? { abortSignal: request.signal } : {}),
      ...(this.options.providerOptions ? { providerOptions: this.options.providerOptions } : {}),
    };
  }
}

function retryNotifier(onRetry: NonNullable<ModelRequest['onRetry']>): (info: RetryInfo) => void {
  return (info) => onRetry({ attempt: info.attempt + 1, maxAttempts: info.maxAttempts, delayMs: info.delayMs, message: info.error.message });
}

/** One HTTP call, mapped to our events. Throws on error parts, on 'error' finishes and on truncated streams. */
async function* streamOnce(model: () => Promise<LanguageModelV4>, call: LanguageModelV4CallOptions): AsyncGenerator<ModelEvent> {
  const { stream } = await (await model()).doStream(call);
  const reader = stream.getReader();
  let done = false;
  let finished = false;
  let sawToolCall = false;
  // Provider metadata arrives on a block's start, deltas or end (Gemini signs a delta); the last one counts.
  const reasoning = new Map<string, { text: string; metadata?: ProviderMetadata }>();
  const textMetadata = new Map<string, ProviderMetadata | undefined>();
  try {
    while (true) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        break;
      }
      const part: LanguageModelV4StreamPart = next.value;
      switch (part.type) {
        case 'text-start':
          textMetadata.set(part.id, part.providerMetadata);
          break;
        case 'text-delta':
          if (part.providerMetadata !== undefined) textMetadata.set(part.id, part.providerMetadata);
          if (part.delta !== '') yield { type: 'text-delta', text: part.delta };
          break;
        case 'text-end': {
          const providerMetadata = part.providerMetadata ?? textMetadata.get(part.id);
          textMetadata.delete(part.id);
          if (providerMetadata !== undefined) yield { type: 'text-metadata', providerMetadata };
          break;
        }
        case 'reasoning-start':
          reasoning.set(part.id, { text: '', metadata: part.providerMetadata });
          break;
        case 'reasoning-delta': {
          const block = reasoning.get(part.id) ?? { text: '' };
          block.text += part.delta;
          if (part.providerMetadata !== undefined) block.metadata = part.providerMetadata;
          reasoning.set(part.id, block);
          if (part.delta !== '') yield { type: 'reasoning-delta', text: part.delta };
          break;
        }
        case 'reasoning-end': {
          const block = reasoning.get(part.id) ?? { text: '' };
          reasoning.delete(part.id);
          const providerMetadata = part.providerMetadata ?? block.metadata;
          // Only a block with something to send back is kept (a signature, an encrypted item).
          if (providerMetadata !== undefined) yield { type: 'reasoning-part', reasoning: { text: block.text, providerMetadata } };
          break;
        }
        case 'tool-input-start':
          if (part.providerExecuted !== true) yield { type: 'tool-call-start', id: part.id, name: part.toolName };
          break;
        case 'tool-call':
          if (part.providerExecuted === true) break;
          sawToolCall = true;
          yield { type: 'tool-call', call: withProviderMetadata(toToolCall(part.toolCallId, part.toolName, part.input), part.providerMetadata) };
          break;
        case 'error':
          throw part.error;
        case 'finish': {
          const unified = part.finishReason.unified;
          if (unified === 'error' || unified === 'interrupted') {
            throw new ModelError('The response stream ended before the model finished', { retryable: true });
          }
          finished = true;
          yield { type: 'finish', stopReason: stopReason(unified, sawToolCall), usage: toUsage(part.usage) };
          break;
        }
        default:
          break;
      }
    }
  } finally {
    // Stop reading (and close the connection) when the consumer stops early or we threw.
    if (!done) await reader.cancel().catch(() => undefined);
  }
  if (!finished) throw new ModelError('The response stream ended without a finish event', { retryable: true });
}

function withProviderMetadata(call: ToolCall, providerMetadata: ProviderMetadata | undefined): ToolCall {
  return providerMetadata === undefined ? call : { ...call, providerMetadata };
}

export function toToolCall(id: string, name: string, input: string): ToolCall {
  const call: ToolCall = { id, name, args: {}, argsText: input };
  if (input.trim() === '') return call;
  try {
    let args: unknown = JSON.parse(input);
    // Some local models double-encode: "{\"path\": ...}". Unwrap when the inner text is an object.
    if (typeof args === 'string' && args.trim().startsWith('{')) {
      try {
        args = JSON.parse(args);
      } catch {
        // keep the string
      }
    }
    if (nestsDeeperThan(args)) {
      call.parseError = `Tool call arguments are nested deeper than ${MAX_JSON_DEPTH} levels`;
      return call;
    }
    call.args = args;
  } catch (err) {
    call.parseError = `Invalid JSON in tool call arguments: ${err instanceof Error ? err.message : String(err)}`;
  }
  return call;
}

function stopReason(unified: string, sawToolCall: boolean): StopReason {
  // Some servers (older Ollama, some llama.cpp builds) say "stop" even when they called tools.
  if (sawToolCall && unified === 'stop') return 'tool-calls';
  switch (unified) {
    case 'stop':
    case 'tool-calls':
    case 'length':
    case 'content-filter':
      return unified;
    default:
      return 'other';
  }
}

export function toUsage(usage: LanguageModelV4Usage): Usage {
  const cacheReadTokens = usage.inputTokens.cacheRead ?? 0;
  const cacheWriteTokens = usage.inputTokens.cacheWrite ?? 0;
  const inputTokens = usage.inputTokens.total ?? (usage.inputTokens.noCache ?? 0) + cacheReadTokens + cacheWriteTokens;
  return { inputTokens, outputTokens: usage.outputTokens.total ?? 0, cacheReadTokens, cacheWriteTokens };
}
