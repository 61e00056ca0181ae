// A protocol run's stream (SPEC §19): the host run's events as the reference server's stream
// parts (stream.mjs: `metadata` first, then `values`, `updates`, `messages` token tuples,
// `custom`, `events`, `error`), each with an SSE id and kept for `join` and a rejoin after a
// `Last-Event-ID`.

import type { AgentEvent, ChatMessage } from '../../../core/agent/types';
import type { ProtocolInterrupt } from './context';
import type { SseEvent } from './http';
import { messageId, toLangChainMessage, toLangChainMessages } from './messages';

export const STREAM_MODES = ['values', 'messages', 'messages-tuple', 'updates', 'events', 'tasks', 'checkpoints', 'debug', 'custom', 'tools'] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/** LangGraph's node names in Deep Agents' graph (langchain createAgent): a model turn, then its tools. */
const MODEL_NODE = 'model_request';
const TOOLS_NODE = 'tools';

/**
 * The bytes of parts one run keeps for joins and rejoins. A run over a long thread sends the
 * whole thread in each `values` part: past this the oldest parts go (a rejoin from before them
 * starts at the oldest kept), so no run's stream holds the host's memory.
 */
export const KEPT_STREAM_BYTES = 64 * 1024 * 1024;

/** One run's parts, kept (each written as JSON once); followers read from any id on and wait for more until it ends. */
export class RunStream {
  private readonly parts: Array<{ id: string; event: string; json: string }> = [];
  /** The id of parts[0] (ids count every part pushed, kept or not). */
  private first = 0;
  private bytes = 0;
  private readonly wakers = new Set<() => void>();
  private ended = false;
  /** The last full state (or `{__interrupt__}` / `{__error__}`) a `wait` or `join` answers. */
  last: unknown = null;

  constructor(private readonly keptBytes = KEPT_STREAM_BYTES) {}

  push(event: string, data: unknown): void {
    if (this.ended) return;
    const json = JSON.stringify(data ?? null);
    this.parts.push({ id: String(this.first + this.parts.length), event, json });
    this.bytes += json.length;
    while (this.bytes > this.keptBytes && this.parts.length > 1) {
      this.bytes -= this.parts.shift()!.json.length;
      this.first += 1;
    }
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  get done(): boolean {
    return this.ended;
  }

  /** The parts after `lastEventId` (all without one), then each new one, until the run ends or `signal` aborts. */
  async *follow(lastEventId: string | undefined, signal?: AbortSignal): AsyncIterable<SseEvent> {
    const after = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : -1;
    let next = after + 1;
    while (!signal?.aborted) {
      for (;;) {
        next = Math.max(next, this.first);
        const part = this.parts[next - this.first];
        if (part === undefined) break;
        next += 1;
        yield part;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.wakers.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.wakers.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Resolves once the run has ended. */
  async finished(): Promise<void> {
    while (!this.ended) await new Promise<void>((resolve) => this.wakers.add(() => resolve()));
  }

  private wake(): void {
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const wake of wakers) wake();
  }
}

export interface TranslatorOptions {
  runId: string;
  threadId: string;
  modes: ReadonlySet<StreamMode>;
  stream: RunStream;
  /** The thread's messages before this run's events (the new person's message included). */
  messages: readonly ChatMessage[];
}

/** Follows one host run's events and pushes what the run's stream modes ask for. */
export class EventTranslator {
  readonly messages: ChatMessage[];
  private open: { index: number; message: Extract<ChatMessage, { role: 'assistant' }> } | undefined;
  private step = 0;

  constructor(private readonly options: TranslatorOptions) {
    this.messages = [...options.messages];
  }

  /** `metadata`, then the state the run starts from. */
  begin(): void {
    this.options.stream.push('metadata', { run_id: this.options.runId, attempt: 1 });
    this.values();
  }

  event(event: AgentEvent): void {
    // A subagent's events are its own thread's, not this state's.
    if (event.parentToolCallId !== undefined) return;
    switch (event.type) {
      case 'text': {
        const open = this.opened();
        open.message.content += event.text;
        this.chunk(open.index, { content: event.text, tool_call_chunks: [] });
        this.lcEvent('on_chat_model_stream', { chunk: this.chunkDict(open.index, { content: event.text, tool_call_chunks: [] }) });
        break;
      }
      case 'tool_call': {
        const open = this.opened();
        const calls = open.message.toolCalls ?? [];
        const argsText = JSON.stringify(event.args ?? {});
        calls.push({ id: event.id, name: event.name, args: event.args ?? {}, argsText, ...(event.parseError !== undefined ? { parseError: event.parseError } : {}) });
        open.message.toolCalls = calls;
        this.chunk(open.index, { content: '', tool_call_chunks: [{ name: event.name, args: argsText, id: event.id, index: calls.length - 1, type: 'tool_call_chunk' }] });
        break;
      }
      case 'tool_result': {
        this.close();
        const index = this.messages.length;
        this.messages.push({ role: 'tool', toolCallId: event.id, toolName: event.name, content: event.output, ...(event.isError ? { isError: true } : {}) });
        this.update(TOOLS_NODE, index);
        this.lcEvent('on_tool_end', { output: event.output }, event.name);
        this.values();
        break;
      }
      case 'tool_output':
        this.custom({ type: 'tool_output', tool_call_id: event.id, chunk: event.chunk });
        break;
      case 'todos':
        this.custom({ type: 'todos', todos: event.todos });
        break;
      case 'done':
        this.close();
        break;
      default:
        break;
    }
  }

  /** The run pauses on approvals: as LangGraph's loop leaves an interrupted step (an `updates` and a `values` with `__interrupt__`). */
  interrupt(interrupts: readonly ProtocolInterrupt[]): void {
    this.close();
    const data = { __interrupt__: interrupts };
    if (this.options.modes.has('updates')) this.options.stream.push('updates', data);
    if (this.options.modes.has('values')) this.options.stream.push('values', data);
    this.options.stream.last = data;
  }

  error(message: string): void {
    this.close();
    const data = { error: 'Error', message };
    this.options.stream.push('error', data);
    this.options.stream.last = { __error__: data };
  }

  /** The state as LangGraph's `values` mode gives it: the whole of it. */
  state(): { messages: unknown[] } {
    return { messages: toLangChainMessages(this.options.threadId, this.messages) };
  }

  private opened(): NonNullable<EventTranslator['open']> {
    if (this.open === undefined) {
      this.step += 1;
      const message: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content: '' };
      this.open = { index: this.messages.length, message };
      this.messages.push(message);
      this.lcEvent('on_chat_model_start', {});
    }
    return this.open;
  }

  /** A model turn is over: its message as the model node's update, and the state after it. */
  private close(): void {
    if (this.open === undefined) return;
    const { index } = this.open;
    this.open = undefined;
    this.update(MODEL_NODE, index);
    this.values();
  }

  private values(): void {
    const state = this.state();
    this.options.stream.last = state;
    if (this.options.modes.has('values')) this.options.stream.push('values', state);
  }

  private update(node: string, index: number): void {
    if (!this.options.modes.has('updates')) return;
    this.options.stream.push('updates', { [node]: { messages: [this.dict(index)] } });
  }

  private dict(index: number): unknown {
    return toLangChainMessage(this.messages[index]!, messageId(this.options.threadId, index));
  }

  private chunkDict(index: number, part: Record<string, unknown>): Record<string, unknown> {
    return { type: 'ai', id: messageId(this.options.threadId, index), additional_kwargs: {}, response_metadata: {}, tool_calls: [], invalid_tool_calls: [], ...part };
  }

  /** `messages-tuple`: each token as `[chunk, metadata]` on the `messages` event. */
  private chunk(index: number, part: Record<string, unknown>): void {
    if (!this.options.modes.has('messages-tuple')) return;
    this.options.stream.push('messages', [this.chunkDict(index, part), this.metadata(MODEL_NODE)]);
  }

  private custom(data: unknown): void {
    if (this.options.modes.has('custom')) this.options.stream.push('custom', data);
  }

  private lcEvent(event: string, data: unknown, name = MODEL_NODE): void {
    if (!this.options.modes.has('events')) return;
    this.options.stream.push('events', { event, name, run_id: this.options.runId, tags: [], metadata: this.metadata(name), data });
  }

  private metadata(node: string): Record<string, unknown> {
    return { run_id: this.options.runId, thread_id: this.options.threadId, langgraph_node: node, langgraph_step: this.step, langgraph_checkpoint_ns: '' };
  }
}
