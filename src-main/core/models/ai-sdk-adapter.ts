import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { MediaInput } from '../media/capabilities';
import { ModelError } from './errors';
import { streamWithRetry } from './retry';
import type { RetryInfo, RetryPolicy } from './retry';
import { toSdkPrompt, toSdkTools } from './to-sdk-prompt';
import type { PromptMapping } from './to-sdk-prompt';
import type { ChatModel, ModelEvent, ModelRequest, ProviderName, StopReason, ToolCall, Usage } from './types';

export interface AiSdkChatModelOptions {
  id: string;
  provider: ProviderName;
  contextWindow: number;
  mediaInput?: MediaInput;
  /** A provider model from @ai-sdk/* (createOpenAI().chat(...), createAnthropic()(...), ...). */
  languageModel: LanguageModelV4;
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
  readonly contextWindow: number;
  readonly mediaInput: MediaInput | undefined;
  private readonly options: AiSdkChatModelOptions;

  constructor(options: AiSdkChatModelOptions) {
    this.id = options.id;
    this.provider = options.provider;
    this.contextWindow = options.contextWindow;
    this.mediaInput = options.mediaInput;
    this.options = options;
  }

  stream(request: ModelRequest): AsyncIterable<ModelEvent> {
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
      prompt: toSdkPrompt(request, this.options.mapping),
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
async function* streamOnce(model: LanguageModelV4, call: LanguageModelV4CallOptions): AsyncGenerator<ModelEvent> {
  const { stream } = await model.doStream(call);
  const reader = stream.getReader();
  let done = false;
  let finished = false;
  let sawToolCall = false;
  try {
    while (true) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        break;
      }
      const part: LanguageModelV4StreamPart = next.value;
      switch (part.type) {
        case 'text-delta':
          if (part.delta !== '') yield { type: 'text-delta', text: part.delta };
          break;
        case 'reasoning-delta':
          if (part.delta !== '') yield { type: 'reasoning-delta', text: part.delta };
          break;
        case 'tool-input-start':
          if (part.providerExecuted !== true) yield { type: 'tool-call-start', id: part.id, name: part.toolName };
          break;
        case 'tool-call':
          if (part.providerExecuted === true) break;
          sawToolCall = true;
          yield { type: 'tool-call', call: toToolCall(part.toolCallId, part.toolName, part.input) };
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
