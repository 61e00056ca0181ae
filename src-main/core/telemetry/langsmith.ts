// LangSmith traces (SPEC §17): each turn as one run tree sent with the official `langsmith`
// client — a `chain` root per turn, an `llm` child per model call, a `tool` child per tool
// call and a nested `chain` per subagent under its `task` call — carrying the metadata of
// Deep Agents' `coding-agent-v1` trace contract, so that a Deep Agents user's saved views
// and thread grouping work. Only when LANGSMITH_TRACING=true (or an equivalent the SDK
// accepts) and an API key are set; the client is built from the options' environment,
// never from process.env.
//
// Exporting never slows or fails a run: every observer call is synchronous and guarded,
// posts and patches go to the client's bounded background queue without being awaited,
// and `flush`/`shutdown` wait for delivery at most FLUSH_TIMEOUT_MS (not at all once a
// request to LangSmith could not be made).

import { Client } from 'langsmith/client';
import { RunTree, type RunTreeConfig } from 'langsmith/run_trees';
import type { RunStopReason } from '../agent/types';
import { ZERO_USAGE, type ChatMessage, type ContentPart, type ToolSpec, type Usage } from '../models/types';
import { scrubSecretsIn } from '../process/scrub-secrets';
import type { CodingTraceContext } from './coding-context';
import { Reachability } from './collector-wait';
import { langsmithConfig, type LangSmithConfig } from './langsmith-config';
import {
  NOOP_MODEL,
  NOOP_RUN,
  NOOP_TOOL,
  safely,
  type AgentRunInfo,
  type ModelCallInfo,
  type ModelCallObserver,
  type ModelCallOutcome,
  type RunObserver,
  type Telemetry,
  type ToolCallInfo,
  type ToolCallObserver,
  type ToolCallOutcome,
} from './observer';

export interface LangSmithOptions {
  /** LANGSMITH_TRACING, LANGSMITH_API_KEY, LANGSMITH_ENDPOINT, LANGSMITH_PROJECT (or their LANGCHAIN_ names, as the SDK reads them). */
  env: NodeJS.ProcessEnv;
  /** The coding-agent trace metadata that does not change within a session. */
  context: CodingTraceContext;
}

/** The longest `flush()` and `shutdown()` wait for LangSmith to take what is queued. */
export const FLUSH_TIMEOUT_MS = 3_000;
/** Bytes of runs held for sending at most (the client's queue and its batches); beyond it runs are dropped. */
const MAX_QUEUE_BYTES = 64 * 1024 * 1024;
/** One ingest request's deadline. */
const REQUEST_TIMEOUT_MS = 15_000;

/** The `coding-agent-v1` identity block (deepagents libs/code/deepagents_code/config.py). */
const CONTRACT = {
  ls_agent_purpose: 'coding',
  ls_integration: 'deepdesk',
  ls_agent_runtime: 'Deepdesk',
  ls_trace_schema_version: 'coding-agent-v1',
} as const;

const REPOSITORY_PROVIDERS: Readonly<Record<string, string>> = { 'github.com': 'github', 'gitlab.com': 'gitlab', 'bitbucket.org': 'bitbucket' };

type KVMap = Record<string, unknown>;
const scrubbed = scrubSecretsIn as (values: KVMap) => KVMap;

/** undefined unless LANGSMITH_TRACING=true (or the LANGCHAIN_ equivalent) and an API key is set. */
export function langsmithTelemetry(options: LangSmithOptions): Telemetry | undefined {
  const config = langsmithConfig(options.env);
  if (config === undefined) return undefined;
  return new LangSmithExporter(config, options.context);
}

class LangSmithExporter implements Telemetry {
  private readonly client: Client;
  /** Aborts what is in flight once shut down; later requests fail at once (and are not retried). */
  private readonly stopped = new AbortController();
  /** Posts and patches handed to the client and not yet queued there. */
  private readonly pending = new Set<Promise<void>>();
  /** Each run's post, so that its patch follows it. */
  private readonly posted = new WeakMap<RunTree, Promise<void>>();
  private closed = false;
  private shutting: Promise<void> | undefined;
  /** Whether LangSmith answers: the SDK retries a refused request for seconds, a flush does not wait for that. */
  private readonly reachability = new Reachability();

  constructor(
    private readonly config: LangSmithConfig,
    private readonly context: CodingTraceContext,
  ) {
    this.client = new Client({
      apiUrl: config.apiUrl,
      apiKey: config.apiKey,
      ...(config.workspaceId !== undefined ? { workspaceId: config.workspaceId } : {}),
      // Everything explicit, so that nothing else in process.env redirects or blocks the runs.
      tracingMode: 'langsmith',
      autoBatchTracing: true,
      blockOnRootRunFinalization: false,
      manualFlushMode: false,
      tracingSamplingRate: config.samplingRate,
      // Inputs, outputs and errors leave scrubbed of secrets (or not at all when hidden).
      hideInputs: config.hideInputs || scrubbed,
      hideOutputs: config.hideOutputs || scrubbed,
      anonymizer: scrubbed,
      hideMetadata: config.hideMetadata,
      maxIngestMemoryBytes: MAX_QUEUE_BYTES,
      timeout_ms: REQUEST_TIMEOUT_MS,
      callerOptions: { maxRetries: 2 },
      disablePromptCache: true,
      debug: false,
      // Not the LANGSMITH_* variables of process.env as run metadata (the sample rate is set below).
      omitTracedRuntimeInfo: true,
      fetchImplementation: this.fetch,
    });
  }

  turn(info: AgentRunInfo): RunObserver {
    if (this.closed) return NOOP_RUN;
    return safely<RunObserver>(() => {
      const metadata = { ...this.traceMetadata(info), ls_agent_type: 'root' };
      const root = new RunTree({
        name: info.agentName || 'deepdesk',
        run_type: 'chain',
        inputs: info.input ? { messages: [messageOut(info.input)] } : {},
        project_name: this.config.project,
        client: this.client,
        // No replicas from process.env (LANGSMITH_RUNS_ENDPOINTS): this client's endpoint only.
        replicas: [],
        tracingEnabled: true,
        metadata,
      });
      this.start(root);
      return new LangSmithRun(this, root, metadata);
    }, NOOP_RUN);
  }

  /** The contract's trace-wide keys for a run of `info`. */
  traceMetadata(info: AgentRunInfo): KVMap {
    return { ...traceMetadata(info, this.context), ls_tracing_sample_rate: this.config.samplingRate };
  }

  /** A child of `parent` with exactly `metadata` (the trace-wide block and its own keys, not its parent's own). */
  child(parent: RunTree, config: RunTreeConfig, metadata: KVMap): RunTree {
    const run = parent.createChild(config);
    run.extra = { ...run.extra, metadata };
    // Sent on its own: the parent need not hold its children (and their inputs) until it ends.
    parent.child_runs = parent.child_runs.filter((c) => c !== run);
    this.start(run);
    return run;
  }

  private start(run: RunTree): void {
    const post = this.track(run.postRun());
    this.posted.set(run, post);
  }

  /** Sends the run's end once its start has been handed over. */
  finish(run: RunTree): void {
    const post = this.posted.get(run) ?? Promise.resolve();
    this.track(post.then(() => run.patchRun({ excludeInputs: true })));
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked = work.catch(() => {});
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
    return tracked;
  }

  async flush(): Promise<void> {
    await this.reachability.wait(this.drain(), FLUSH_TIMEOUT_MS);
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    await this.client.awaitPendingTraceBatches().catch(() => {});
  }

  shutdown(): Promise<void> {
    this.shutting ??= (async () => {
      this.closed = true;
      await this.flush();
      this.stopped.abort();
      safely(() => this.client.cleanup(), undefined);
    })();
    return this.shutting;
  }

  /** The client's fetch: the global one, cut off by shutdown. */
  private readonly fetch = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    if (this.stopped.signal.aborted) throw stoppedError();
    const signal = init?.signal ? AbortSignal.any([init.signal, this.stopped.signal]) : this.stopped.signal;
    try {
      const response = await fetch(input, { ...init, signal });
      this.reachability.answered();
      return response;
    } catch (err) {
      // The SDK retries what it does not recognise as a cancellation.
      if (this.stopped.signal.aborted) throw stoppedError();
      this.reachability.failed();
      throw err;
    }
  }) as typeof fetch;
}

/** One agent run (a turn's root, or a subagent's chain under its `task` call). */
class LangSmithRun implements RunObserver {
  /** Calls not ended yet: ended (as cut short) when the run ends. */
  private readonly open = new Set<(error: string) => void>();
  private ended = false;

  constructor(
    private readonly exporter: LangSmithExporter,
    private readonly run: RunTree,
    /** The trace-wide keys its children carry (the contract block and `ls_agent_type`). */
    private readonly shared: KVMap,
  ) {}

  modelCall(info: ModelCallInfo): ModelCallObserver {
    return safely(() => {
      const run = this.exporter.child(
        this.run,
        { name: info.model || info.provider, run_type: 'llm', inputs: llmInputs(info) },
        {
          ...this.shared,
          ...(info.purpose === 'summarization' ? { ls_agent_type: 'compaction' } : {}),
          ls_provider: info.provider,
          ls_model_name: info.model,
          ls_model_type: 'chat',
        },
      );
      const end = (outcome: ModelCallOutcome): void => {
        if (!this.open.delete(cut)) return;
        const usage = usageMetadata(outcome.usage, outcome.costUsd);
        const outputs: KVMap = { role: 'assistant', content: outcome.text ?? '', usage_metadata: usage };
        if (outcome.toolCalls && outcome.toolCalls.length > 0) outputs.tool_calls = outcome.toolCalls.map((c) => toolCallOut(c.id, c.name, c.args));
        if (outcome.stopReason !== undefined) outputs.stop_reason = outcome.stopReason;
        void run.end(outputs, outcome.error, Date.now(), { usage_metadata: usage });
        this.exporter.finish(run);
      };
      const cut = (error: string): void => end({ usage: ZERO_USAGE, durationMs: 0, error });
      this.open.add(cut);
      return { end: (outcome) => safely(() => end(outcome), undefined) };
    }, NOOP_MODEL);
  }

  toolCall(info: ToolCallInfo): ToolCallObserver {
    return safely(() => {
      const run = this.exporter.child(
        this.run,
        { name: info.name, run_type: 'tool', inputs: toolInputs(info.args) },
        { ...this.shared, ls_tool_name: info.name, tool_call_id: info.id },
      );
      const subagents = new Set<LangSmithRun>();
      const end = (outcome: ToolCallOutcome): void => {
        if (!this.open.delete(cut)) return;
        for (const sub of subagents) sub.cut('the task call ended before the subagent did');
        void run.end({ output: outcome.output }, outcome.isError ? outcome.output || 'error' : undefined, Date.now());
        this.exporter.finish(run);
      };
      const cut = (error: string): void => end({ output: error, isError: true });
      this.open.add(cut);
      return {
        decided: (decision, by) =>
          safely(() => {
            run.metadata = { approval_decision: decision, approval_decided_by: by };
          }, undefined),
        // LangSmith propagates its own headers; the W3C traceparent is OpenTelemetry's.
        traceparent: () => undefined,
        subagent: (sub) =>
          safely<RunObserver>(() => {
            const shared = { ...this.exporter.traceMetadata(sub), ls_agent_type: 'subagent' };
            const chain = this.exporter.child(
              run,
              { name: sub.agentName, run_type: 'chain', inputs: sub.input ? { messages: [messageOut(sub.input)] } : {} },
              { ...shared, ls_subagent_type: sub.agentName, ls_subagent_id: sub.parentToolCallId ?? info.id },
            );
            const observer = new LangSmithRun(this.exporter, chain, shared);
            subagents.add(observer);
            return observer;
          }, NOOP_RUN),
        end: (outcome) => safely(() => end(outcome), undefined),
      };
    }, NOOP_TOOL);
  }

  end(outcome: { reason: RunStopReason; text: string; error?: string }): void {
    safely(() => {
      if (this.ended) return;
      this.ended = true;
      for (const cut of [...this.open]) cut(`the run ended (${outcome.reason}) before this call did`);
      const error = outcome.error ?? (outcome.reason === 'error' ? 'error' : undefined);
      void this.run.end({ messages: [{ role: 'assistant', content: outcome.text }], reason: outcome.reason }, error, Date.now());
      this.exporter.finish(this.run);
    }, undefined);
  }

  /** Ends the run as cut short (its `task` call ended first). */
  cut(error: string): void {
    this.end({ reason: 'aborted', text: '', error });
  }
}


/** The contract's trace-wide keys for one run (unknown ones are left out, as the contract asks). */
function traceMetadata(info: AgentRunInfo, context: CodingTraceContext): KVMap {
  const metadata: KVMap = { ...CONTRACT, thread_id: info.threadId, turn_number: info.turn };
  if (context.repositoryUrl) {
    metadata.repository_url = context.repositoryUrl;
    const repo = repositoryOf(context.repositoryUrl);
    if (repo) {
      metadata.repository_provider = repo.provider;
      metadata.repository_name = repo.name;
    }
  }
  if (context.gitBranch) metadata.git_branch = context.gitBranch;
  if (context.gitCommitSha) metadata.git_commit_sha = context.gitCommitSha;
  const cwd = context.cwd || info.folder;
  if (cwd) metadata.cwd = cwd;
  if (context.sandboxType && context.sandboxType !== 'none') metadata.sandbox_type = context.sandboxType;
  return metadata;
}

/** `repository_provider` and `repository_name` of a normalized `https://<host>/<path>` URL. */
function repositoryOf(url: string): { provider: string; name: string } | undefined {
  const match = /^https:\/\/([^/]+)\/(.+)$/.exec(url);
  if (!match?.[1] || !match[2]) return undefined;
  return { provider: REPOSITORY_PROVIDERS[match[1]] ?? 'other', name: match[2] };
}

/** Usage in the shape LangSmith reads (`input_tokens` already counts the cached ones). */
function usageMetadata(usage: Usage, costUsd: number | undefined): KVMap {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_token_details: { cache_read: usage.cacheReadTokens, cache_creation: usage.cacheWriteTokens },
    ...(costUsd !== undefined ? { total_cost: costUsd } : {}),
  };
}

function llmInputs(info: ModelCallInfo): KVMap {
  const messages: KVMap[] = [];
  if (info.system) messages.push({ role: 'system', content: info.system });
  for (const m of info.messages) messages.push(messageOut(m));
  const inputs: KVMap = { messages };
  if (info.tools.length > 0) inputs.tools = info.tools.map(toolOut);
  return inputs;
}

/** A message as LangSmith shows one (OpenAI's chat format); media are named, not sent. */
function messageOut(message: ChatMessage): KVMap {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: contentOut(message.content) };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls && message.toolCalls.length > 0 ? { tool_calls: message.toolCalls.map((c) => toolCallOut(c.id, c.name, c.args, c.argsText)) } : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, name: message.toolName, content: contentOut(message.content) };
  }
}

function contentOut(content: string | ContentPart[]): string | KVMap[] {
  if (typeof content === 'string') return content;
  return content.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const size = part.bytes ?? Math.floor((part.data.length * 3) / 4);
    return { type: 'text', text: `[${part.type}: ${part.name ?? part.mimeType}, ${part.mimeType}, ${size} bytes]` };
  });
}

function toolCallOut(id: string, name: string, args: unknown, argsText?: string): KVMap {
  return { id, type: 'function', function: { name, arguments: argsText ?? jsonText(args) } };
}

function toolOut(tool: ToolSpec): KVMap {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

/** A tool run's inputs: its arguments (an object as it is). */
function toolInputs(args: unknown): KVMap {
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? { ...(args as KVMap) } : { input: args };
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

function stoppedError(): Error {
  // The SDK's retry gives up on a message starting "AbortError".
  const err = new Error('AbortError: the LangSmith exporter was shut down');
  err.name = 'AbortError';
  return err;
}
