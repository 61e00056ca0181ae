// LangSmith export against a real HTTP receiver on 127.0.0.1 of what the official client
// posts: its `/info` question, `/runs/multipart` (gzip or plain) and `/runs/batch`.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { closedLoopbackPort } from '../models/testing/loopback';
import type { CodingTraceContext } from './coding-context';
import { langsmithTelemetry } from './langsmith';
import { langsmithConfig } from './langsmith-config';
import type { AgentRunInfo, Telemetry } from './observer';
import { PLANTED, PUSH, playSecretTurn } from './secret-turn.test-support';
import { withClockStopped } from './stopped-clock.test-support';
import { startLangSmithReceiver as startReceiver, type LangSmithReceiver as Receiver, type WireRun } from './langsmith-receiver.test-support';

const CONTEXT: CodingTraceContext = {
  cwd: '/home/ada/widgets',
  gitBranch: 'feature/trace',
  gitCommitSha: '0123456789abcdef0123456789abcdef01234567',
  repositoryUrl: 'https://github.com/acme/widgets',
  sandboxType: 'bwrap',
};

const turnInfo = (turn: number): AgentRunInfo => ({
  threadId: 'thread-42',
  turn,
  agentName: 'deepdesk',
  depth: 0,
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  input: { role: 'user', content: `question ${turn}` },
  folder: CONTEXT.cwd,
});

const open: Array<{ telemetry?: Telemetry; receiver?: Receiver }> = [];
afterEach(async () => {
  for (const { telemetry, receiver } of open.splice(0)) {
    await telemetry?.shutdown?.();
    await receiver?.close();
  }
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function env(receiver: Receiver, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { LANGSMITH_TRACING: 'true', LANGSMITH_API_KEY: 'lsv2_test_key', LANGSMITH_ENDPOINT: receiver.url, LANGSMITH_PROJECT: 'deepdesk-tests', ...extra };
}

/** Waits until the receiver holds `count` runs that have ended. */
async function endedRuns(receiver: Receiver, count: number): Promise<WireRun[]> {
  await vi.waitFor(
    () => {
      const ended = receiver.runs().filter((r) => r.end_time !== undefined);
      if (ended.length < count) throw new Error(`${ended.length} of ${count} runs ended`);
    },
    { timeout: 30_000, interval: 50 },
  );
  return receiver.runs();
}

const byName = (runs: WireRun[], name: string, runType?: string): WireRun[] => runs.filter((r) => r.name === name && (runType === undefined || r.run_type === runType));
const one = (runs: WireRun[], name: string, runType?: string): WireRun => {
  const found = byName(runs, name, runType);
  expect(found, `one run named ${name}`).toHaveLength(1);
  return found[0] as WireRun;
};
const isChildOf = (child: WireRun, parent: WireRun): void => {
  expect(child.parent_run_id).toBe(parent.id);
  expect(child.trace_id).toBe(parent.trace_id);
  expect(child.dotted_order?.startsWith(`${parent.dotted_order}.`)).toBe(true);
  expect(child.dotted_order?.split('.')).toHaveLength((parent.dotted_order?.split('.').length ?? 0) + 1);
  expect(child.dotted_order?.endsWith(child.id)).toBe(true);
};

describe('langsmithTelemetry', () => {
  it('sends each turn as one run tree: llm, tool and nested subagent runs, usage and the coding-agent metadata', async () => {
    const receiver = await startReceiver({ gzip: true });
    const telemetry = langsmithTelemetry({ env: env(receiver), context: CONTEXT });
    open.push({ telemetry, receiver });
    expect(telemetry).toBeDefined();
    const t = telemetry as Telemetry;

    const run = t.turn(turnInfo(1));
    const call = run.modelCall({
      purpose: 'agent',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      system: 'You are Deepdesk.',
      messages: [{ role: 'user', content: 'question 1' }],
      tools: [{ name: 'read_file', description: 'Reads a file', parameters: { type: 'object' } }],
    });
    call.end({
      usage: { inputTokens: 1200, outputTokens: 340, cacheReadTokens: 800, cacheWriteTokens: 100 },
      costUsd: 0.0123,
      durationMs: 900,
      stopReason: 'tool-calls',
      text: 'Let me look.',
      toolCalls: [{ id: 'call-read', name: 'read_file', args: { path: 'README.md' } }],
    });
    const read = run.toolCall({ id: 'call-read', name: 'read_file', args: { path: 'README.md' } });
    read.decided('allow', 'rule');
    read.end({ output: '# Widgets', isError: false });

    const task = run.toolCall({ id: 'call-task', name: 'task', args: { subagent_type: 'researcher', description: 'dig' } });
    task.decided('approve', 'person');
    const sub = task.subagent({ ...turnInfo(1), agentName: 'researcher', depth: 1, parentToolCallId: 'call-task', input: { role: 'user', content: 'dig' } });
    sub.modelCall({ purpose: 'agent', provider: 'openai', model: 'gpt-5', system: '', messages: [], tools: [] }).end({
      usage: { inputTokens: 50, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
      durationMs: 100,
      text: 'checking',
    });
    const shell = sub.toolCall({ id: 'call-sh', name: 'execute', args: { command: 'false' } });
    shell.decided('deny', 'mode');
    shell.end({ output: 'refused in plan mode', isError: true });
    sub.end({ reason: 'completed', text: 'found it' });
    task.end({ output: 'found it', isError: false });

    run.modelCall({ purpose: 'summarization', provider: 'anthropic', model: 'claude-haiku-4-5', system: 'Summarize', messages: [], tools: [] }).end({
      usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      durationMs: 10,
      text: 'summary',
    });
    run.end({ reason: 'completed', text: 'Done.' });

    const second = t.turn(turnInfo(2));
    second.end({ reason: 'error', text: '', error: 'provider unavailable' });

    await t.flush?.();
    const runs = await endedRuns(receiver, 9);
    expect(runs).toHaveLength(9);

    // One root run per turn.
    const roots = runs.filter((r) => r.parent_run_id === undefined);
    expect(roots.map((r) => r.extra?.metadata?.turn_number).sort()).toEqual([1, 2]);
    for (const root of roots) {
      expect(root).toMatchObject({ name: 'deepdesk', run_type: 'chain', session_name: 'deepdesk-tests', trace_id: root.id });
      expect(root.dotted_order?.endsWith(root.id)).toBe(true);
      expect(root.dotted_order).not.toContain('.');
    }
    const root = roots.find((r) => r.extra?.metadata?.turn_number === 1) as WireRun;
    const failed = roots.find((r) => r.extra?.metadata?.turn_number === 2) as WireRun;
    expect(root.inputs).toEqual({ messages: [{ role: 'user', content: 'question 1' }] });
    expect(root.outputs).toMatchObject({ messages: [{ role: 'assistant', content: 'Done.' }], reason: 'completed' });
    expect(root.error).toBeUndefined();
    expect(failed.error).toBe('provider unavailable');

    // The model call: an llm child with the usage exactly as given.
    const llm = one(runs, 'claude-sonnet-4-5', 'llm');
    isChildOf(llm, root);
    const usage = {
      input_tokens: 1200,
      output_tokens: 340,
      total_tokens: 1540,
      input_token_details: { cache_read: 800, cache_creation: 100 },
      total_cost: 0.0123,
    };
    expect(llm.outputs?.usage_metadata).toEqual(usage);
    expect(llm.extra?.metadata?.usage_metadata).toEqual(usage);
    expect(llm.extra?.metadata).toMatchObject({ ls_provider: 'anthropic', ls_model_name: 'claude-sonnet-4-5', ls_agent_type: 'root' });
    expect(llm.inputs).toMatchObject({
      messages: [
        { role: 'system', content: 'You are Deepdesk.' },
        { role: 'user', content: 'question 1' },
      ],
      tools: [{ type: 'function', function: { name: 'read_file' } }],
    });
    expect(llm.outputs).toMatchObject({
      role: 'assistant',
      content: 'Let me look.',
      stop_reason: 'tool-calls',
      tool_calls: [{ id: 'call-read', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }],
    });

    // Tool calls: args in, output out, the decision and who made it.
    const readRun = one(runs, 'read_file', 'tool');
    isChildOf(readRun, root);
    expect(readRun.inputs).toEqual({ path: 'README.md' });
    expect(readRun.outputs).toEqual({ output: '# Widgets' });
    expect(readRun.error).toBeUndefined();
    expect(readRun.extra?.metadata).toMatchObject({ approval_decision: 'allow', approval_decided_by: 'rule', ls_tool_name: 'read_file', tool_call_id: 'call-read' });

    // The subagent: a chain under its task run, its own calls under it.
    const taskRun = one(runs, 'task', 'tool');
    isChildOf(taskRun, root);
    expect(taskRun.extra?.metadata).toMatchObject({ approval_decision: 'approve', approval_decided_by: 'person' });
    const subRun = one(runs, 'researcher', 'chain');
    isChildOf(subRun, taskRun);
    expect(subRun.inputs).toEqual({ messages: [{ role: 'user', content: 'dig' }] });
    expect(subRun.outputs).toMatchObject({ messages: [{ role: 'assistant', content: 'found it' }] });
    expect(subRun.extra?.metadata).toMatchObject({ ls_agent_type: 'subagent', ls_subagent_type: 'researcher', ls_subagent_id: 'call-task' });
    // Run-scoped keys stay on their run: the task call's are not the subagent's.
    expect(subRun.extra?.metadata?.approval_decision).toBeUndefined();
    expect(subRun.extra?.metadata?.ls_tool_name).toBeUndefined();
    const subLlm = one(runs, 'gpt-5', 'llm');
    isChildOf(subLlm, subRun);
    expect(subLlm.outputs?.usage_metadata).toEqual({ input_tokens: 50, output_tokens: 7, total_tokens: 57, input_token_details: { cache_read: 0, cache_creation: 0 } });
    expect(subLlm.extra?.metadata).toMatchObject({ ls_provider: 'openai', ls_model_name: 'gpt-5', ls_agent_type: 'subagent' });
    expect(subLlm.extra?.metadata?.ls_subagent_type).toBeUndefined();
    const shellRun = one(runs, 'execute', 'tool');
    isChildOf(shellRun, subRun);
    expect(shellRun.error).toBe('refused in plan mode');
    expect(shellRun.extra?.metadata).toMatchObject({ approval_decision: 'deny', approval_decided_by: 'mode' });

    const summary = one(runs, 'claude-haiku-4-5', 'llm');
    isChildOf(summary, root);
    expect(summary.extra?.metadata?.ls_agent_type).toBe('compaction');

    // The coding-agent-v1 keys on every run, with the session's values.
    for (const r of runs) {
      expect(r.session_name, r.name).toBe('deepdesk-tests');
      expect(r.extra?.metadata, r.name).toMatchObject({
        ls_agent_purpose: 'coding',
        ls_trace_schema_version: 'coding-agent-v1',
        ls_integration: 'deepdesk',
        ls_agent_runtime: 'Deepdesk',
        thread_id: 'thread-42',
        turn_number: r.trace_id === root.id ? 1 : 2,
        cwd: '/home/ada/widgets',
        git_branch: 'feature/trace',
        git_commit_sha: '0123456789abcdef0123456789abcdef01234567',
        repository_url: 'https://github.com/acme/widgets',
        repository_provider: 'github',
        repository_name: 'acme/widgets',
        sandbox_type: 'bwrap',
      });
      expect(r.start_time).toBeDefined();
      expect(r.end_time).toBeDefined();
    }

    // Every request carried the key; the runs went out compressed, as /info allowed.
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) expect(request.headers['x-api-key']).toBe('lsv2_test_key');
    const ingests = receiver.requests.filter((r) => r.path === '/runs/multipart');
    expect(ingests.length).toBeGreaterThan(0);
    for (const ingest of ingests) expect(ingest.headers['content-encoding']).toBe('gzip');
  });

  it('reads the LANGCHAIN_ names as the SDK does, and sends uncompressed when the server does not take gzip', async () => {
    const receiver = await startReceiver({ gzip: false });
    // What process.env says is not this exporter's configuration (nor its runs' metadata).
    vi.stubEnv('LANGSMITH_PROJECT', 'from-process-env');
    vi.stubEnv('LANGSMITH_ENDPOINT', 'http://127.0.0.1:1');
    vi.stubEnv('LANGSMITH_RUNS_ENDPOINTS', JSON.stringify({ 'http://127.0.0.1:1': 'other-key' }));
    vi.stubEnv('LANGSMITH_TRACING_MODE', 'otel');
    vi.stubEnv('LANGSMITH_NOTE', 'not-for-export');
    const telemetry = langsmithTelemetry({
      env: { LANGCHAIN_TRACING_V2: 'true', LANGCHAIN_API_KEY: 'legacy-key', LANGCHAIN_ENDPOINT: `${receiver.url}/`, LANGCHAIN_PROJECT: 'legacy-project' },
      context: { cwd: '/tmp/plain', sandboxType: 'none' },
    });
    open.push({ telemetry, receiver });
    const run = (telemetry as Telemetry).turn({ ...turnInfo(1), input: undefined });
    run.end({ reason: 'completed', text: 'ok' });
    await telemetry?.flush?.();
    const [root] = await endedRuns(receiver, 1);
    expect(root).toMatchObject({ session_name: 'legacy-project', inputs: {} });
    expect(root?.extra?.metadata).toMatchObject({ ls_agent_purpose: 'coding', thread_id: 'thread-42', turn_number: 1, cwd: '/tmp/plain' });
    // Unknown git facts and `none` are left out, as the contract asks.
    for (const key of ['git_branch', 'git_commit_sha', 'repository_url', 'sandbox_type', 'LANGSMITH_NOTE']) expect(root?.extra?.metadata).not.toHaveProperty(key);
    for (const request of receiver.requests) {
      expect(request.headers['x-api-key']).toBe('legacy-key');
      expect(request.headers['content-encoding']).toBeUndefined();
    }
  });

  it('sends no secret the turn carried: inputs, outputs and errors are scrubbed, the call still recognisable', async () => {
    const receiver = await startReceiver({ gzip: false });
    const telemetry = langsmithTelemetry({ env: env(receiver), context: CONTEXT })!;
    open.push({ telemetry, receiver });
    playSecretTurn(telemetry, turnInfo(1));
    const wire = JSON.stringify(await endedRuns(receiver, 3));
    expect(PLANTED.filter((secret) => wire.includes(secret))).toEqual([]);
    expect(wire).toContain(PUSH);
  });

  it('ends the calls a run leaves open when the run ends', async () => {
    const receiver = await startReceiver({ gzip: true });
    const telemetry = langsmithTelemetry({ env: env(receiver), context: CONTEXT }) as Telemetry;
    open.push({ telemetry, receiver });
    const run = telemetry.turn(turnInfo(1));
    run.modelCall({ purpose: 'agent', provider: 'anthropic', model: 'claude-sonnet-4-5', system: '', messages: [], tools: [] });
    const task = run.toolCall({ id: 'call-task', name: 'task', args: {} });
    task.subagent({ ...turnInfo(1), agentName: 'researcher', depth: 1, parentToolCallId: 'call-task' });
    run.end({ reason: 'aborted', text: '' });
    await telemetry.flush?.();
    const runs = await endedRuns(receiver, 4);
    expect(one(runs, 'claude-sonnet-4-5', 'llm').error).toMatch(/ended \(aborted\)/);
    expect(one(runs, 'task', 'tool').error).toMatch(/ended \(aborted\)/);
    expect(one(runs, 'researcher', 'chain').error).toMatch(/task call ended/);
  });

  it('sends nothing unless LANGSMITH_TRACING is true and a key is set, and never reads process.env', async () => {
    const receiver = await startReceiver({ gzip: true });
    open.push({ receiver });
    const context = { cwd: '/x', sandboxType: 'none' };
    const base = { LANGSMITH_API_KEY: 'k', LANGSMITH_ENDPOINT: receiver.url };
    expect(langsmithTelemetry({ env: base, context })).toBeUndefined();
    expect(langsmithTelemetry({ env: { ...base, LANGSMITH_TRACING: 'false' }, context })).toBeUndefined();
    expect(langsmithTelemetry({ env: { ...base, LANGSMITH_TRACING: '1' }, context })).toBeUndefined();
    expect(langsmithTelemetry({ env: { LANGSMITH_TRACING: 'true', LANGSMITH_ENDPOINT: receiver.url }, context })).toBeUndefined();
    vi.stubEnv('LANGSMITH_TRACING', 'true');
    vi.stubEnv('LANGSMITH_API_KEY', 'from-process-env');
    vi.stubEnv('LANGSMITH_ENDPOINT', receiver.url);
    expect(langsmithTelemetry({ env: {}, context })).toBeUndefined();
    // Neither the endpoint, the key nor the project come from process.env.
    expect(langsmithConfig({ LANGSMITH_TRACING: 'true', LANGSMITH_API_KEY: 'mine' })).toMatchObject({
      apiUrl: 'https://api.smith.langchain.com',
      apiKey: 'mine',
      project: 'default',
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it('does not slow the run when LangSmith is down, and flush and shutdown do not wait for it', async () => {
    // A port nothing listens on: connections are refused.
    const port = await closedLoopbackPort();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});

    const telemetry = langsmithTelemetry({
      env: { LANGSMITH_TRACING: 'true', LANGSMITH_API_KEY: 'k', LANGSMITH_ENDPOINT: `http://127.0.0.1:${port}` },
      context: CONTEXT,
    }) as Telemetry;
    open.push({ telemetry });

    // Every call is synchronous (it returns no promise): none can wait for the network.
    for (let turn = 1; turn <= 20; turn++) {
      const run = telemetry.turn(turnInfo(turn));
      for (let i = 0; i < 5; i++) {
        const call = run.modelCall({ purpose: 'agent', provider: 'anthropic', model: 'm', system: 's', messages: [{ role: 'user', content: 'q' }], tools: [] });
        expect(call.end({ usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, durationMs: 1, text: 'a' })).toBeUndefined();
        const tool = run.toolCall({ id: `c${i}`, name: 'read_file', args: { path: 'x' } });
        tool.decided('allow', 'rule');
        expect(tool.end({ output: 'x', isError: false })).toBeUndefined();
      }
      expect(run.end({ reason: 'completed', text: 'done' })).toBeUndefined();
    }

    // A refused request is enough: neither waits for the client's retries, nor for its bound.
    // The clock stands still from here, so neither could ever end the wait: only the refusal can.
    const requests = vi.spyOn(globalThis, 'fetch');
    await withClockStopped(async () => {
      await telemetry.flush?.();
      await telemetry.shutdown?.();
    });
    // Once shut down, a turn is not traced at all.
    requests.mockClear();
    telemetry.turn(turnInfo(99)).end({ reason: 'completed', text: '' });
    await telemetry.flush?.();
    expect(requests).not.toHaveBeenCalled();
  });
});
