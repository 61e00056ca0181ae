// OpenTelemetry export (SPEC §17) against a real OTLP/HTTP receiver on 127.0.0.1 that decodes
// the protobuf the exporter sends: the span tree of a turn, the GenAI attributes, headers,
// content only when asked for, nothing when not configured, and an unreachable collector that
// neither slows the run nor holds up flush and shutdown.
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closedLoopbackPort } from '../models/testing/loopback';
import type { ChatMessage } from '../models/types';
import type { AgentRunInfo, ModelCallInfo, Telemetry } from './observer';
import { readOtelConfig } from './otel-config';
import { CONTENT_CAP } from './otel-content';
import { otelTelemetry, type OtelOptions } from './otel';
import { withClockStopped } from './stopped-clock.test-support';
import { startOtlpReceiver, type DecodedSpan, type OtlpReceiver } from './otlp-receiver.test-support';
import { PLANTED, PUSH, playSecretTurn } from './secret-turn.test-support';

const THREAD = 'thread-7f3a';
const SYSTEM = 'SYSTEM-PROMPT-SECRET: you are a careful agent';
const QUESTION = 'USER-QUESTION-SECRET: fix the failing test';
const ANSWER = 'FINAL-ANSWER-SECRET: fixed it';
const TOOL_OUTPUT = 'TOOL-RESULT-SECRET: 42 lines';
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const CONTENT_KEYS = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'];

let receiver: OtlpReceiver;
const started: Telemetry[] = [];

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((t) => t.shutdown?.()));
  await receiver.close();
});

function telemetry(options: Partial<OtelOptions> & { env: NodeJS.ProcessEnv }): Telemetry {
  const t = otelTelemetry({ serviceVersion: '1.2.3', ...options });
  if (!t) throw new Error('tracing was not configured');
  started.push(t);
  return t;
}

const runInfo = (extra: Partial<AgentRunInfo> = {}): AgentRunInfo => ({
  threadId: THREAD,
  turn: 3,
  agentName: 'deepdesk',
  depth: 0,
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  input: { role: 'user', content: QUESTION },
  ...extra,
});

const history: ChatMessage[] = [
  { role: 'user', content: [{ type: 'text', text: QUESTION }, { type: 'image', mimeType: 'image/png', data: PNG_BASE64, name: 'shot.png', bytes: 70 }] },
  { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'call-1', name: 'read_file', args: { path: '/a.ts' }, argsText: '{"path":"/a.ts"}' }] },
  { role: 'tool', toolCallId: 'call-1', toolName: 'read_file', content: TOOL_OUTPUT },
];

const chat = (extra: Partial<ModelCallInfo> = {}): ModelCallInfo => ({
  purpose: 'agent',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  system: SYSTEM,
  messages: history,
  tools: [{ name: 'read_file', description: 'Reads a file', parameters: { type: 'object' } }],
  ...extra,
});

/** A turn: a model call asking for two tools, read_file and a task whose subagent works, then the answer. */
function playTurn(t: Telemetry): { traceparent: string | undefined } {
  const run = t.turn(runInfo());
  const first = run.modelCall(chat());
  first.end({
    usage: { inputTokens: 1234, outputTokens: 56, cacheReadTokens: 1000, cacheWriteTokens: 7 },
    costUsd: 0.0125,
    durationMs: 800,
    stopReason: 'tool-calls',
    text: 'Let me look.',
    toolCalls: [
      { id: 'call-1', name: 'read_file', args: { path: '/a.ts' } },
      { id: 'call-2', name: 'task', args: { description: 'search', subagent_type: 'general-purpose' } },
    ],
  });
  const read = run.toolCall({ id: 'call-1', name: 'read_file', args: { path: '/a.ts' } });
  read.decided('allow', 'rule');
  const traceparent = read.traceparent();
  read.end({ output: TOOL_OUTPUT, isError: false });

  const task = run.toolCall({ id: 'call-2', name: 'task', args: { description: 'search', subagent_type: 'general-purpose' } });
  task.decided('approve', 'person');
  const sub = task.subagent(runInfo({ agentName: 'general-purpose', depth: 1, parentToolCallId: 'call-2', turn: 3, input: { role: 'user', content: 'search' } }));
  const subChat = sub.modelCall(chat({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'search' }] }));
  subChat.end({ usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }, durationMs: 5, stopReason: 'tool-calls' });
  const grep = sub.toolCall({ id: 'call-3', name: 'grep', args: { pattern: 'x' } });
  grep.end({ output: 'no matches', isError: true });
  sub.end({ reason: 'completed', text: 'found nothing' });
  task.end({ output: 'found nothing', isError: false });

  const second = run.modelCall(chat({ purpose: 'summarization' }));
  second.end({ usage: { inputTokens: 2000, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 }, durationMs: 300, stopReason: 'stop', text: ANSWER });
  run.end({ reason: 'completed', text: ANSWER });
  return { traceparent };
}

async function exported(count: number): Promise<DecodedSpan[]> {
  await vi.waitFor(() => expect(receiver.spans().length).toBeGreaterThanOrEqual(count), { timeout: 60_000, interval: 20 });
  return receiver.spans();
}

function byName(spans: DecodedSpan[], name: string): DecodedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

describe('otelTelemetry', () => {
  it('exports one goal_gate span per gate evaluation, under the turn, with its verdict (SPEC §21)', async () => {
    const t = telemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
    const run = t.turn(runInfo());
    const grader = run.modelCall(chat({ purpose: 'grader' }));
    grader.end({ usage: { inputTokens: 300, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 }, durationMs: 40, stopReason: 'tool-calls' });
    run.goalGate!({ round: 0, steps: 2 }).end({ verdict: 'needs_revision', state: 'pursuing', stepsPassed: 1, stepsFailed: 1, durationMs: 120 });
    run.goalGate!({ round: 1, steps: 2 }).end({ verdict: 'achieved', state: 'achieved', stepsPassed: 2, stepsFailed: 0, durationMs: 90 });
    run.end({ reason: 'completed', text: 'ok' });
    await t.flush?.();
    const spans = await exported(4);
    const gates = spans.filter((s) => s.name === 'goal_gate');
    expect(gates.map((g) => [g.attributes['deepdesk.goal.round'], g.attributes['deepdesk.goal.verdict'], g.attributes['deepdesk.goal.state'], g.attributes['deepdesk.goal.steps_failed']])).toEqual([
      [0, 'needs_revision', 'pursuing', 1],
      [1, 'achieved', 'achieved', 0],
    ]);
    const root = byName(spans, 'invoke_agent deepdesk');
    for (const gate of gates) expect(gate.parentSpanId).toBe(root.spanId);
    expect(byName(spans, 'chat claude-sonnet-4-5').attributes['deepdesk.purpose']).toBe('grader');
  });

  it('exports a turn as invoke_agent → chat / execute_tool → nested invoke_agent, with the GenAI attributes', async () => {
    const t = telemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s3cret%20key,x-team=agents' } });
    const { traceparent } = playTurn(t);
    await t.flush?.();
    const spans = await exported(8);
    expect(spans).toHaveLength(8);

    const root = byName(spans, 'invoke_agent deepdesk');
    const chats = spans.filter((s) => s.name === 'chat claude-sonnet-4-5');
    const read = byName(spans, 'execute_tool read_file');
    const task = byName(spans, 'execute_tool task');
    const sub = byName(spans, 'invoke_agent general-purpose');
    const subChat = byName(spans, 'chat claude-haiku-4-5');
    const grep = byName(spans, 'execute_tool grep');
    expect(chats).toHaveLength(2);

    // One trace; the tree.
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(root.parentSpanId).toBeUndefined();
    for (const child of [...chats, read, task]) expect(child.parentSpanId).toBe(root.spanId);
    expect(sub.parentSpanId).toBe(task.spanId);
    expect(subChat.parentSpanId).toBe(sub.spanId);
    expect(grep.parentSpanId).toBe(sub.spanId);

    // Kinds: agents and tools in-process (INTERNAL = 1), model calls CLIENT (3).
    expect([root.kind, sub.kind, read.kind, task.kind, grep.kind]).toEqual([1, 1, 1, 1, 1]);
    expect([...chats, subChat].map((s) => s.kind)).toEqual([3, 3, 3]);

    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'deepdesk',
      'gen_ai.conversation.id': THREAD,
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'deepdesk.turn': 3,
      'deepdesk.stop_reason': 'completed',
    });
    expect(sub.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'general-purpose', 'gen_ai.conversation.id': THREAD, 'deepdesk.parent_tool_call.id': 'call-2' });

    const [first, second] = [...chats].sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano));
    expect(first!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.usage.input_tokens': 1234,
      'gen_ai.usage.output_tokens': 56,
      'gen_ai.usage.cache_read.input_tokens': 1000,
      'gen_ai.usage.cache_creation.input_tokens': 7,
      'gen_ai.response.finish_reasons': ['tool_call'],
      'deepdesk.purpose': 'agent',
      'deepdesk.cost_usd': 0.0125,
    });
    expect(second!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 2000, 'gen_ai.usage.output_tokens': 30, 'gen_ai.response.finish_reasons': ['stop'], 'deepdesk.purpose': 'summarization' });
    expect(second!.attributes).not.toHaveProperty('deepdesk.cost_usd');

    expect(read.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': 'call-1',
      'deepdesk.approval.decision': 'allow',
      'deepdesk.approval.decided_by': 'rule',
    });
    expect(task.attributes).toMatchObject({ 'deepdesk.approval.decision': 'approve', 'deepdesk.approval.decided_by': 'person' });
    expect(grep.attributes).not.toHaveProperty('deepdesk.approval.decision');
    expect(grep.attributes).not.toHaveProperty('deepdesk.approval.decided_by');
    expect(grep.status.code).toBe(2);
    expect(read.status.code).toBe(0);

    // The traceparent a command gets is the tool call's span.
    const parsed = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent ?? '');
    expect(parsed, traceparent).not.toBeNull();
    expect(parsed![1]).toBe(read.traceId);
    expect(parsed![2]).toBe(read.spanId);

    // The resource and the headers.
    expect(root.resource).toMatchObject({ 'service.name': 'deepdesk', 'service.version': '1.2.3' });
    expect(root.scope.name).toBe('deepdesk');
    const request = receiver.requests()[0]!;
    expect(request.headers['x-api-key']).toBe('s3cret key');
    expect(request.headers['x-team']).toBe('agents');
    expect(request.headers['content-type']).toBe('application/x-protobuf');

    // No content by default: not the attributes, not the text anywhere.
    for (const span of spans) for (const key of CONTENT_KEYS) expect(span.attributes, `${span.name} ${key}`).not.toHaveProperty(key);
    const everything = JSON.stringify(spans, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    for (const secret of ['SYSTEM-PROMPT-SECRET', 'USER-QUESTION-SECRET', 'FINAL-ANSWER-SECRET', 'TOOL-RESULT-SECRET', '/a.ts', 'Let me look']) expect(everything).not.toContain(secret);
  });

  it('exports the content when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: valid JSON, no media bytes, capped', async () => {
    const t = telemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' } });
    playTurn(t);
    const huge = t.turn(runInfo({ turn: 4 }));
    const bigCall = huge.toolCall({ id: 'call-9', name: 'read_file', args: { path: '/big.txt', note: 'y'.repeat(200_000) } });
    bigCall.end({ output: 'x'.repeat(500_000), isError: false });
    const manyMessages: ChatMessage[] = Array.from({ length: 400 }, (_, i) => ({ role: 'user', content: `${i}:${'z'.repeat(20_000)}` }));
    huge.modelCall(chat({ messages: manyMessages })).end({ usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, durationMs: 1 });
    huge.end({ reason: 'error', text: '', error: 'provider said no' });
    await t.flush?.();
    const spans = await exported(11);

    const root = spans.find((s) => s.name === 'invoke_agent deepdesk' && s.attributes['deepdesk.turn'] === 3)!;
    expect(JSON.parse(root.attributes['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: QUESTION }] }]);
    expect(JSON.parse(root.attributes['gen_ai.output.messages'] as string)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }], finish_reason: 'stop' }]);

    const first = spans.find((s) => s.name === 'chat claude-sonnet-4-5' && s.attributes['deepdesk.purpose'] === 'agent' && s.attributes['gen_ai.usage.input_tokens'] === 1234)!;
    expect(JSON.parse(first.attributes['gen_ai.system_instructions'] as string)).toEqual([{ type: 'text', content: SYSTEM }]);
    const input = JSON.parse(first.attributes['gen_ai.input.messages'] as string) as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    expect(input.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(input[0]!.parts[0]).toEqual({ type: 'text', content: QUESTION });
    expect(input[0]!.parts[1]!.content).toMatch(/^\[image\/png shot\.png, 70 bytes, not exported\]$/);
    expect(input[1]!.parts).toContainEqual({ type: 'tool_call', id: 'call-1', name: 'read_file', arguments: { path: '/a.ts' } });
    expect(input[2]!.parts).toEqual([{ type: 'tool_call_response', id: 'call-1', response: TOOL_OUTPUT }]);
    expect(JSON.parse(first.attributes['gen_ai.output.messages'] as string)).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Let me look.' },
          { type: 'tool_call', id: 'call-1', name: 'read_file', arguments: { path: '/a.ts' } },
          { type: 'tool_call', id: 'call-2', name: 'task', arguments: { description: 'search', subagent_type: 'general-purpose' } },
        ],
        finish_reason: 'tool_call',
      },
    ]);
    const everything = JSON.stringify(spans, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    expect(everything).not.toContain(PNG_BASE64.slice(0, 40));

    const read = spans.find((s) => s.name === 'execute_tool read_file' && s.attributes['gen_ai.tool.call.id'] === 'call-1')!;
    expect(JSON.parse(read.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ path: '/a.ts' });
    expect(read.attributes['gen_ai.tool.call.result']).toBe(TOOL_OUTPUT);

    // Huge values are capped and stay valid JSON; the oldest messages go first.
    const big = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'call-9')!;
    const args = big.attributes['gen_ai.tool.call.arguments'] as string;
    const result = big.attributes['gen_ai.tool.call.result'] as string;
    expect(args.length).toBeLessThanOrEqual(CONTENT_CAP);
    expect((JSON.parse(args) as { path: string }).path).toBe('/big.txt');
    expect(result.length).toBeLessThanOrEqual(CONTENT_CAP);
    expect(result).toMatch(/^x+…\[\d+ more characters not exported\]$/);
    const crowded = spans.find((s) => s.name.startsWith('chat ') && s.attributes['gen_ai.usage.input_tokens'] === 1)!;
    const crowdedJson = crowded.attributes['gen_ai.input.messages'] as string;
    expect(crowdedJson.length).toBeLessThanOrEqual(CONTENT_CAP);
    const kept = JSON.parse(crowdedJson) as Array<{ parts: Array<{ content: string }> }>;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(400);
    expect(kept.at(-1)!.parts[0]!.content.startsWith('399:')).toBe(true);
    expect(crowded.attributes['deepdesk.content.omitted_messages']).toBe(400 - kept.length);

    // A failed run: error status and error.type.
    const failed = spans.find((s) => s.name === 'invoke_agent deepdesk' && s.attributes['deepdesk.turn'] === 4)!;
    expect(failed.status).toEqual({ code: 2, message: 'provider said no' });
    expect(failed.attributes).toMatchObject({ 'error.type': '_OTHER', 'deepdesk.stop_reason': 'error' });
  });

  it('exports no secret the turn carried when content is captured: attributes and status scrubbed, the call still recognisable', async () => {
    const t = telemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' } });
    playSecretTurn(t, runInfo());
    await t.flush?.();
    const everything = JSON.stringify(await exported(3), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    expect(PLANTED.filter((secret) => everything.includes(secret))).toEqual([]);
    expect(everything).toContain(PUSH);
  });

  it("Settings' switch and endpoint work alone, without any OTEL_* variable", async () => {
    const t = telemetry({ env: {}, endpoint: receiver.url, captureContent: true });
    const run = t.turn(runInfo());
    const call = run.modelCall(chat({ provider: 'google', model: 'gemini-2.5-pro' }));
    call.end({ usage: { inputTokens: 5, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0 }, durationMs: 9, error: 'rate limited' });
    run.end({ reason: 'aborted', text: '' });
    await t.flush?.();
    const spans = await exported(2);
    const chatSpan = byName(spans, 'chat gemini-2.5-pro');
    expect(chatSpan.attributes).toMatchObject({ 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.usage.input_tokens': 5, 'error.type': '_OTHER' });
    expect(chatSpan.status).toEqual({ code: 2, message: 'rate limited' });
    expect(JSON.parse(chatSpan.attributes['gen_ai.system_instructions'] as string)).toEqual([{ type: 'text', content: SYSTEM }]);
    expect(byName(spans, 'invoke_agent deepdesk').status.code).toBe(0);
  });

  it('takes OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, and still sends protobuf when another protocol is asked for', async () => {
    const t = telemetry({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_SERVICE_NAME: 'desk-under-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci,team=a%2Cb,service.name=overridden',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-which=general',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-which=traces',
      },
    });
    t.turn(runInfo({ provider: 'openai-compatible', model: 'qwen3' })).end({ reason: 'completed', text: 'ok' });
    await t.flush?.();
    const [span] = await exported(1);
    expect(span!.resource).toMatchObject({ 'service.name': 'desk-under-test', 'deployment.environment': 'ci', team: 'a,b', 'service.version': '1.2.3' });
    expect(span!.attributes['gen_ai.provider.name']).toBe('openai_compatible');
    expect(receiver.requests()[0]!.headers['x-which']).toBe('traces');
    expect(receiver.requests()[0]!.headers['content-type']).toBe('application/x-protobuf');
  });

  it('is undefined when nothing is configured, when OTEL_SDK_DISABLED=true and when OTEL_TRACES_EXPORTER=none', () => {
    expect(otelTelemetry({ env: {}, serviceVersion: '1' })).toBeUndefined();
    expect(otelTelemetry({ env: {}, endpoint: '  ', captureContent: true, serviceVersion: '1' })).toBeUndefined();
    expect(otelTelemetry({ env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }, serviceVersion: '1' })).toBeUndefined();
    expect(otelTelemetry({ env: { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, serviceVersion: '1' })).toBeUndefined();
    expect(otelTelemetry({ env: { OTEL_SDK_DISABLED: 'TRUE' }, endpoint: receiver.url, serviceVersion: '1' })).toBeUndefined();
    expect(otelTelemetry({ env: { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, serviceVersion: '1' })).toBeUndefined();
    expect(otelTelemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, serviceVersion: '1' })).toBeUndefined();
    const on = otelTelemetry({ env: { OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, serviceVersion: '1' });
    expect(on).toBeDefined();
    started.push(on!);
  });

  it('registers nothing globally', () => {
    const t = telemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
    t.turn(runInfo()).end({ reason: 'completed', text: '' });
    const global = trace.getTracerProvider();
    expect(global).toBeInstanceOf(ProxyTracerProvider);
    expect((global as ProxyTracerProvider).getDelegate().constructor.name).toBe('NoopTracerProvider');
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('never throws into the run: calls twice, after the end and after shutdown do nothing', async () => {
    const t = telemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
    const run = t.turn(runInfo());
    const tool = run.toolCall({ id: 'c', name: 'ls', args: { self: undefined, big: 10n } });
    tool.end({ output: '', isError: false });
    expect(() => {
      tool.end({ output: '', isError: false });
      tool.decided('deny', 'hook');
      tool.subagent(runInfo()).end({ reason: 'completed', text: '' });
      run.end({ reason: 'completed', text: '' });
      run.end({ reason: 'completed', text: '' });
    }).not.toThrow();
    await t.shutdown?.();
    await t.shutdown?.();
    const after = t.turn(runInfo());
    expect(() => after.modelCall(chat()).end({ usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, durationMs: 0 })).not.toThrow();
    expect(after.toolCall({ id: 'x', name: 'ls', args: {} }).traceparent()).toBeUndefined();
  });

  it('an unreachable collector: the calls return at once, flush and shutdown do not wait for it', async () => {
    const port = await closedLoopbackPort();
    const t = telemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } });
    // Every call is synchronous (it returns a value, not a promise): none can wait for the network.
    for (let i = 0; i < 300; i++) {
      const run = t.turn(runInfo({ turn: i }));
      const call = run.modelCall(chat());
      call.end({ usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, durationMs: 1, stopReason: 'stop' });
      const tool = run.toolCall({ id: `c${i}`, name: 'execute', args: { command: 'ls' } });
      tool.decided('allow', 'mode');
      expect(tool.traceparent()).toMatch(/^00-/);
      expect(tool.end({ output: 'ok', isError: false })).toBeUndefined();
      expect(run.end({ reason: 'completed', text: 'done' })).toBeUndefined();
      // Let the batch processor's exports start and fail meanwhile.
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }

    // A refused connection is enough: neither waits for the exporter's retries, nor for its bound.
    // The clock stands still from here, so neither could ever end the wait: only the refusal can.
    await withClockStopped(async () => {
      await t.flush?.();
      await t.shutdown?.();
    });
  });
});

describe('readOtelConfig', () => {
  it('builds the traces URL as the spec says, and takes the Settings endpoint with or without /v1/traces', () => {
    const url = (env: NodeJS.ProcessEnv, endpoint?: string) => readOtelConfig({ env, ...(endpoint !== undefined ? { endpoint } : {}) })?.url;
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('http://collector:4318/v1/traces');
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector/otlp/' })).toBe('https://collector/otlp/v1/traces');
    expect(url({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom' })).toBe('http://collector:4318/custom');
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' }, 'http://settings:4318')).toBe('http://env:4318/v1/traces');
    expect(url({}, 'http://settings:4318')).toBe('http://settings:4318/v1/traces');
    expect(url({}, 'http://settings:4318/v1/traces')).toBe('http://settings:4318/v1/traces');
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///tmp/x' })).toBeUndefined();
  });

  it('reads headers, the service name and the content switch; a malformed OTEL_RESOURCE_ATTRIBUTES is dropped whole', () => {
    const config = readOtelConfig({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-a = 1',
        OTEL_RESOURCE_ATTRIBUTES: 'a=1,broken',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
      },
    });
    expect(config).toMatchObject({ headers: { authorization: 'Bearer abc', 'x-a': '1' }, serviceName: 'deepdesk', resourceAttributes: {}, captureContent: true, ignoredProtocol: 'http/json' });
    expect(readOtelConfig({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' } })).not.toHaveProperty('ignoredProtocol');
    expect(readOtelConfig({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' } })?.captureContent).toBe(false);
  });
});
