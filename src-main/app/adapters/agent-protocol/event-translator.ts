// A host run's events as the reference server's stream parts (SPEC §19; its stream.mjs):
// `metadata` first, then what the run's stream modes ask — `values` (the whole state),
// `updates` (each node's messages), `messages-tuple` (token chunks and each node's new
// messages as `messages` tuples), `messages` (`messages/metadata`, `messages/partial`,
// `messages/complete`), `custom`, `events` (LangChain callback events), `tools` (tool
// lifecycle) — and `error`. `tasks`, `checkpoints` and `debug` describe LangGraph's super-steps
// and checkpoints, which a Deepdesk run does not have: those are refused (NOT_PRODUCED).

import { randomUUID } from 'node:crypto';
import type { AgentEvent, ChatMessage, Todo } from '../../../core/agent/types';
import { unhandledEvent } from '../../contract/agent-events';
import type { ProtocolInterrupt } from './context';
import { messageId, toLangChainMessage, toLangChainMessages, type LangChainMessage } from './messages';
import type { RunStream, StreamMode } from './run-stream';
import { writtenFiles, type ProtocolFile } from './thread-files';

/** The modes a run is refused (422 naming `stream_mode`): nothing of a Deepdesk run answers them. */
export const NOT_PRODUCED: readonly StreamMode[] = ['tasks', 'checkpoints', 'debug'];

/** LangGraph's node names in Deep Agents' graph (langchain createAgent): a model turn, then its tools. */
const MODEL_NODE = 'model_request';
const TOOLS_NODE = 'tools';

export interface TranslatorOptions {
  runId: string;
  threadId: string;
  modes: ReadonlySet<StreamMode>;
  stream: RunStream;
  /** The thread's messages before this run's events (the new person's message included). */
  messages: readonly ChatMessage[];
  /** The thread's todos as the run starts (Deep Agents' `todos` state). */
  todos?: readonly Todo[];
  /** The run's folder: where the files the thread wrote are read for the state's `files`. */
  folder?: string;
}

/** The state as LangGraph's `values` mode gives it: the whole of it. */
export interface ProtocolValues {
  messages: LangChainMessage[];
  todos: Todo[];
  files: Record<string, ProtocolFile>;
}

/** Follows one host run's events and pushes what the run's stream modes ask for. */
export class EventTranslator {
  readonly messages: ChatMessage[];
  private todos: Todo[];
  private open: { index: number; message: Extract<ChatMessage, { role: 'assistant' }> } | undefined;
  private step = 0;
  /** Per step and node, the task id in its checkpoint namespace. */
  private readonly tasks = new Map<string, string>();
  /** `messages` mode: the ids already sent whole, and the ones whose metadata went. */
  private readonly completed = new Set<string>();
  private readonly started = new Set<string>();
  private readonly toolNames = new Map<string, string>();

  constructor(private readonly options: TranslatorOptions) {
    this.messages = [...options.messages];
    this.todos = [...(options.todos ?? [])];
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
        this.partial(open.index);
        this.lcEvent('on_chat_model_stream', { chunk: this.chunkDict(open.index, { content: event.text, tool_call_chunks: [] }) });
        break;
      }
      case 'tool_call': {
        const open = this.opened();
        const calls = open.message.toolCalls ?? [];
        const argsText = JSON.stringify(event.args ?? {});
        calls.push({ id: event.id, name: event.name, args: event.args ?? {}, argsText, ...(event.parseError !== undefined ? { parseError: event.parseError } : {}) });
        open.message.toolCalls = calls;
        this.toolNames.set(event.id, event.name);
        this.chunk(open.index, { content: '', tool_call_chunks: [{ name: event.name, args: argsText, id: event.id, index: calls.length - 1, type: 'tool_call_chunk' }] });
        this.partial(open.index);
        this.tool({ event: 'on_tool_start', toolCallId: event.id, name: event.name, input: event.args ?? {} });
        break;
      }
      case 'tool_result': {
        this.close();
        const index = this.messages.length;
        this.messages.push({ role: 'tool', toolCallId: event.id, toolName: event.name, content: event.output, ...(event.isError ? { isError: true } : {}), ...(event.change ? { change: event.change } : {}) });
        this.update(TOOLS_NODE, index);
        // As LangGraph's messages handler sends a node's new messages that no model streamed.
        if (this.options.modes.has('messages-tuple')) this.options.stream.push('messages', [this.dict(index), this.metadata(TOOLS_NODE)]);
        this.tool(event.isError ? { event: 'on_tool_error', toolCallId: event.id, name: event.name, error: event.output } : { event: 'on_tool_end', toolCallId: event.id, name: event.name, output: event.output });
        this.lcEvent('on_tool_end', { output: event.output }, event.name);
        this.values();
        break;
      }
      case 'tool_output':
        this.custom({ type: 'tool_output', tool_call_id: event.id, chunk: event.chunk });
        this.tool({ event: 'on_tool_event', toolCallId: event.id, name: this.toolNames.get(event.id) ?? '', data: event.chunk });
        break;
      case 'todos':
        this.todos = [...event.todos];
        this.custom({ type: 'todos', todos: event.todos });
        break;
      case 'done':
        this.close();
        break;
      // Nothing of LangGraph's stream parts stands for these (approvals are the run's interrupts).
      case 'approval':
      case 'summarized':
      case 'usage':
      case 'checkpoint':
      case 'error':
      case 'user_message':
      case 'queued':
      case 'note':
      case 'hook':
      case 'rewound':
      case 'retry':
      case 'goal':
      case 'paused':
        break;
      default:
        unhandledEvent(event);
    }
  }

  /** The run pauses on approvals: as LangGraph's loop leaves an interrupted step (an `updates` and a `values` with `__interrupt__`); `onRead` once a client is sent them. */
  interrupt(interrupts: readonly ProtocolInterrupt[], onRead: () => void): void {
    this.close();
    this.options.stream.deliveredBy(onRead);
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

  state(): ProtocolValues {
    return { messages: toLangChainMessages(this.options.threadId, this.messages), todos: [...this.todos], files: writtenFiles(this.messages, this.options.folder) };
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

  /** A state reached: `values` when asked, `messages/complete` for its new messages, and what a `wait` answers (built only if read). */
  private values(): void {
    const { modes, stream } = this.options;
    stream.lastFrom(() => this.state());
    if (modes.has('values')) stream.push('values', this.state());
    if (modes.has('messages')) {
      const fresh: unknown[] = [];
      for (let i = 0; i < this.messages.length; i++) {
        const id = messageId(this.options.threadId, i);
        if (this.completed.has(id)) continue;
        this.completed.add(id);
        fresh.push(this.dict(i));
      }
      if (fresh.length > 0) stream.push('messages/complete', fresh);
    }
  }

  /** `messages`: the model's message so far (its metadata first, once). */
  private partial(index: number): void {
    if (!this.options.modes.has('messages')) return;
    const id = messageId(this.options.threadId, index);
    if (!this.started.has(id)) {
      this.started.add(id);
      this.options.stream.push('messages/metadata', { [id]: { metadata: this.metadata(MODEL_NODE) } });
    }
    this.options.stream.push('messages/partial', [this.dict(index)]);
  }

  private update(node: string, index: number): void {
    if (!this.options.modes.has('updates')) return;
    this.options.stream.push('updates', { [node]: { messages: [this.dict(index)] } });
  }

  private dict(index: number): LangChainMessage {
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

  private tool(data: Record<string, unknown>): void {
    if (this.options.modes.has('tools')) this.options.stream.push('tools', data);
  }

  private lcEvent(event: string, data: unknown, name = MODEL_NODE): void {
    if (!this.options.modes.has('events')) return;
    this.options.stream.push('events', { event, name, run_id: this.options.runId, tags: [], metadata: this.metadata(name), data });
  }

  /** As LangGraph's task metadata: the node, its step, what triggered it and its checkpoint namespace. */
  private metadata(node: string): Record<string, unknown> {
    const key = `${this.step}:${node}`;
    let task = this.tasks.get(key);
    if (task === undefined) this.tasks.set(key, (task = randomUUID()));
    const namespace = `${node}:${task}`;
    return {
      tags: [],
      run_id: this.options.runId,
      thread_id: this.options.threadId,
      langgraph_step: this.step,
      langgraph_node: node,
      langgraph_triggers: [`branch:to:${node}`],
      langgraph_path: ['__pregel_pull', node],
      langgraph_checkpoint_ns: namespace,
      checkpoint_ns: namespace,
    };
  }
}
