// OpenTelemetry traces of the agent's runs (SPEC §17), with the official SDK and the GenAI
// semantic conventions: `invoke_agent <agent>` per turn (a subagent's nested under its task
// call), `chat <model>` per model call and `execute_tool <tool>` per tool call, exported over
// OTLP/HTTP (protobuf) when configured (otel-config.ts). Its own tracer provider, never the
// global one, and explicit parent contexts, never the global context manager: nothing else in
// the process is traced or changed by it. Spans go through a bounded batch queue: an
// unreachable collector drops them, the run never waits on an export. Content (prompts,
// messages, tool arguments and results) is on the spans only when capture is on
// (otel-content.ts).
import { defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, ERROR_TYPE_VALUE_OTHER } from '@opentelemetry/semantic-conventions';
// The GenAI names live in the incubating entry point (marked as moving to the GenAI conventions' own repository; the names stay).
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';
import type { ProviderName } from '../models/types';
import { scrubSecrets } from '../process/scrub-secrets';
import type { RunStopReason } from '../agent/types';
import { boundedWait, connectionFails } from './collector-wait';
import { readOtelConfig, type OtelConfig } from './otel-config';
import { CONTENT_CAP, argumentsJson, finishReason, inputMessagesJson, outputMessagesJson, resultText, systemInstructionsJson } from './otel-content';
import {
  NOOP_RUN,
  safely,
  type AgentRunInfo,
  type ModelCallInfo,
  type ModelCallObserver,
  type ModelCallOutcome,
  type RunObserver,
  type Telemetry,
  type ToolCallInfo,
  type ToolCallObserver,
} from './observer';

export interface OtelOptions {
  /** The standard OTEL_* variables are read from here (and only here). */
  env: NodeJS.ProcessEnv;
  /** Settings › Telemetry's OTLP/HTTP endpoint (a base URL), used when no OTEL_* endpoint variable is set. */
  endpoint?: string;
  /** Settings' switch; OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true also turns it on. */
  captureContent?: boolean;
  serviceVersion: string;
}

/** Spans waiting for export at most; past it new ones are dropped. */
export const MAX_QUEUE_SIZE = 2048;
const MAX_EXPORT_BATCH_SIZE = 512;
const SCHEDULED_DELAY_MS = 2000;
/** One export (its retries included) at most. */
export const EXPORT_TIMEOUT_MS = 5000;
/** flush() and shutdown() return by then, whatever the collector does (at once when it cannot be reached). */
export const FLUSH_TIMEOUT_MS = 3000;
/** An error's text on a span's status, at most. */
const STATUS_MESSAGE_CAP = 1024;

/**
 * Deepdesk's provider names as `gen_ai.provider.name` has them: the conventions' well-known
 * values where there is one (`google` is the Gemini API, `gcp.gemini`); for the others the
 * conventions allow a custom value. An OpenAI-compatible endpoint is not OpenAI (vLLM, LM
 * Studio, a gateway): `openai` would claim it was, so it gets a value of its own.
 */
const PROVIDER_NAMES: Readonly<Record<ProviderName, string>> = {
  anthropic: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  openai: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  google: GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  ollama: 'ollama',
  'openai-compatible': 'openai_compatible',
};

export function genAiProviderName(provider: ProviderName): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/** undefined when nothing is configured (nothing leaves the machine unless the person configured it). */
export function otelTelemetry(options: OtelOptions): Telemetry | undefined {
  const config = safely(() => readOtelConfig(options), undefined);
  if (config === undefined) return undefined;
  return safely(() => createOtelTelemetry(config, options.serviceVersion), undefined);
}

function createOtelTelemetry(config: OtelConfig, serviceVersion: string): Telemetry {
  // Protobuf over HTTP whatever OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL says (config.ignoredProtocol):
  // it is the spec's default and the one exporter bundled; grpc or http/json are not offered.
  // Everything is passed explicitly; the SDK still falls back to process.env for what is not
  // (certificate files, extra headers that ours then override).
  const exporter = new OTLPTraceExporter({ url: config.url, headers: config.headers, timeoutMillis: EXPORT_TIMEOUT_MS });
  const processor = new BatchSpanProcessor({
    exporter,
    maxQueueSize: MAX_QUEUE_SIZE,
    maxExportBatchSize: MAX_EXPORT_BATCH_SIZE,
    scheduledDelayMillis: SCHEDULED_DELAY_MS,
    exportTimeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const resource = defaultResource().merge(
    resourceFromAttributes({ [ATTR_SERVICE_VERSION]: serviceVersion, ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName }),
  );
  const provider = new TracerProvider({
    resource,
    sampler: new AlwaysOnSampler(),
    spanLimits: { attributeValueLengthLimit: CONTENT_CAP },
    spanProcessors: [processor],
  });
  const tracer = new Spans(provider.getTracer('deepdesk', serviceVersion), config.captureContent);
  // The SDK retries a refused export for seconds: the run that ends waits only while the collector can be reached.
  const bounded = (work: Promise<unknown>) => boundedWait(work, FLUSH_TIMEOUT_MS, connectionFails(config.url, FLUSH_TIMEOUT_MS));
  let closed = false;
  return {
    turn: (info) => (closed ? NOOP_RUN : safely(() => runObserver(tracer, info, ROOT_CONTEXT), NOOP_RUN)),
    flush: () => bounded(provider.forceFlush({ timeoutMillis: FLUSH_TIMEOUT_MS })),
    shutdown: async () => {
      if (closed) return;
      closed = true;
      // What never ended (a crash, a quit mid-run) is still sent, marked as such.
      safely(() => tracer.endAll(), undefined);
      await bounded(provider.shutdown());
    },
  };
}

/** The tracer, whether content is captured, and the spans not yet ended. */
class Spans {
  private readonly open = new Set<Span>();
  private readonly propagator = new W3CTraceContextPropagator();

  constructor(
    private readonly tracer: Tracer,
    readonly capture: boolean,
  ) {}

  start(name: string, kind: SpanKind, attributes: Attributes, parent: Context): Span {
    const span = this.tracer.startSpan(name, { kind, attributes }, parent);
    this.open.add(span);
    return span;
  }

  end(span: Span): void {
    if (!this.open.delete(span)) return;
    span.end();
  }

  endAll(): void {
    for (const span of [...this.open]) {
      span.setAttribute('deepdesk.unfinished', true);
      this.end(span);
    }
  }

  traceparent(span: Span): string | undefined {
    const carrier: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
    return carrier.traceparent;
  }
}

function runObserver(spans: Spans, info: AgentRunInfo, parent: Context): RunObserver {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
    [ATTR_GEN_AI_AGENT_NAME]: info.agentName,
    [ATTR_GEN_AI_CONVERSATION_ID]: info.threadId,
    [ATTR_GEN_AI_PROVIDER_NAME]: genAiProviderName(info.provider),
    [ATTR_GEN_AI_REQUEST_MODEL]: info.model,
    'deepdesk.turn': info.turn,
    'deepdesk.depth': info.depth,
  };
  if (info.parentToolCallId !== undefined) attributes['deepdesk.parent_tool_call.id'] = info.parentToolCallId;
  if (spans.capture && info.input) attributes[ATTR_GEN_AI_INPUT_MESSAGES] = inputMessagesJson([info.input]).json;
  const span = spans.start(`${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${info.agentName}`, SpanKind.INTERNAL, attributes, parent);
  const context = trace.setSpan(ROOT_CONTEXT, span);
  return {
    modelCall: (call) => safely(() => modelCallObserver(spans, call, context), NOOP_RUN.modelCall(call)),
    toolCall: (call) => safely(() => toolCallObserver(spans, call, context), NOOP_RUN.toolCall(call)),
    end: (outcome) =>
      safely(() => {
        span.setAttribute('deepdesk.stop_reason', outcome.reason);
        if (spans.capture && outcome.text) {
          span.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, outputMessagesJson({ text: outcome.text, finishReason: runFinishReason(outcome.reason) }));
        }
        if (outcome.reason === 'error') markError(span, outcome.error);
        spans.end(span);
      }, undefined),
    goalGate: (gate) => {
      const started = spans.start('goal_gate', SpanKind.INTERNAL, { 'deepdesk.goal.round': gate.round, 'deepdesk.goal.steps': gate.steps }, context);
      return {
        end: (outcome) =>
          safely(() => {
            started.setAttributes({
              'deepdesk.goal.verdict': outcome.verdict,
              'deepdesk.goal.state': outcome.state,
              'deepdesk.goal.steps_passed': outcome.stepsPassed,
              'deepdesk.goal.steps_failed': outcome.stepsFailed,
            });
            if (outcome.error !== undefined) markError(started, outcome.error);
            spans.end(started);
          }, undefined),
      };
    },
  };
}

function runFinishReason(reason: RunStopReason): string {
  return reason === 'completed' ? 'stop' : reason;
}

function modelCallObserver(spans: Spans, info: ModelCallInfo, parent: Context): ModelCallObserver {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
    [ATTR_GEN_AI_PROVIDER_NAME]: genAiProviderName(info.provider),
    [ATTR_GEN_AI_REQUEST_MODEL]: info.model,
    'deepdesk.purpose': info.purpose,
  };
  if (info.agent !== undefined) attributes[ATTR_GEN_AI_AGENT_NAME] = info.agent;
  if (spans.capture) {
    attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = systemInstructionsJson(info.system);
    const input = inputMessagesJson(info.messages);
    attributes[ATTR_GEN_AI_INPUT_MESSAGES] = input.json;
    if (input.omitted > 0) attributes['deepdesk.content.omitted_messages'] = input.omitted;
  }
  const span = spans.start(`${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${info.model}`, SpanKind.CLIENT, attributes, parent);
  return {
    end: (outcome: ModelCallOutcome) =>
      safely(() => {
        const { usage } = outcome;
        const ended: Attributes = {
          [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
          [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
          [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cacheReadTokens,
          [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: usage.cacheWriteTokens,
        };
        if (outcome.stopReason !== undefined) ended[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [finishReason(outcome.stopReason)];
        if (outcome.responseModel !== undefined) ended[ATTR_GEN_AI_RESPONSE_MODEL] = outcome.responseModel;
        if (outcome.costUsd !== undefined) ended['deepdesk.cost_usd'] = outcome.costUsd;
        if (spans.capture && (outcome.text || outcome.toolCalls?.length)) {
          ended[ATTR_GEN_AI_OUTPUT_MESSAGES] = outputMessagesJson({
            ...(outcome.text !== undefined ? { text: outcome.text } : {}),
            ...(outcome.toolCalls !== undefined ? { toolCalls: outcome.toolCalls } : {}),
            ...(outcome.stopReason !== undefined ? { finishReason: finishReason(outcome.stopReason) } : {}),
          });
        }
        span.setAttributes(ended);
        if (outcome.error !== undefined) markError(span, outcome.error);
        spans.end(span);
      }, undefined),
  };
}

function toolCallObserver(spans: Spans, info: ToolCallInfo, parent: Context): ToolCallObserver {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    [ATTR_GEN_AI_TOOL_NAME]: info.name,
    [ATTR_GEN_AI_TOOL_CALL_ID]: info.id,
    [ATTR_GEN_AI_TOOL_TYPE]: 'function',
  };
  if (spans.capture) attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = argumentsJson(info.args);
  const span = spans.start(`${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${info.name}`, SpanKind.INTERNAL, attributes, parent);
  const context = trace.setSpan(ROOT_CONTEXT, span);
  return {
    decided: (decision, by) => safely(() => void span.setAttributes({ 'deepdesk.approval.decision': decision, 'deepdesk.approval.decided_by': by }), undefined),
    traceparent: () => safely(() => spans.traceparent(span), undefined),
    subagent: (run) => safely(() => runObserver(spans, run, context), NOOP_RUN),
    review: () => {
      const review = spans.start('review', SpanKind.INTERNAL, {}, context);
      return {
        end: (outcome) =>
          safely(() => {
            if ('error' in outcome) markError(review, outcome.error);
            else review.setAttributes({ 'deepdesk.review.decision': outcome.decision, 'deepdesk.review.risk': outcome.risk, 'deepdesk.review.category': outcome.category });
            spans.end(review);
          }, undefined),
      };
    },
    end: (outcome) =>
      safely(() => {
        if (spans.capture) span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, resultText(outcome.output));
        if (outcome.isError) markError(span, undefined);
        spans.end(span);
      }, undefined),
  };
}

/** Error status with `error.type` (`_OTHER`: Deepdesk's errors come as text, not as classes). */
function markError(span: Span, message: string | undefined): void {
  span.setAttribute(ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_OTHER);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message: scrubSecrets(message).slice(0, STATUS_MESSAGE_CAP) } : {}) });
}
