// `deepdesk run` as a person runs it, audited (SPEC §17): every model call in the ledger with
// the provider's numbers, `--max-cost` stopping the run before the call that would cross it,
// and traces to a real OTLP/HTTP receiver with TRACEPARENT reaching the agent's command.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../core/backends/store/store';
import { closedLoopbackPort } from '../core/models/testing/loopback';
import { startLangSmithReceiver } from '../core/telemetry/langsmith-receiver.test-support';
import { startOtlpReceiver, type OtlpReceiver } from '../core/telemetry/otlp-receiver.test-support';
import { UsageLedger } from '../core/telemetry/usage-ledger';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-usage');
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const NO_TELEMETRY = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', LANGSMITH_TRACING: '', LANGCHAIN_TRACING_V2: '' };

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args], { ...NO_TELEMETRY, ...env });
}

/**
 * A one-call run with `env` answers as one without it. That it is not held up is shown without a
 * clock in otel.test and langsmith.test (their flush and shutdown end with the clock stopped);
 * what it adds to a run is a row of `npm run bench -- --only usage`.
 */
async function answersWith(env: NodeJS.ProcessEnv): Promise<void> {
  t.server.push({ text: 'Fine.' });
  const r = await run(['hi'], env);
  expect(r).toMatchObject({ code: 0, stderr: '' });
  expect(r.stdout.trim()).toBe('Fine.');
}

function ledgerRows(threadId: string) {
  const db = openDatabase(join(t.dataDir, 'deepdesk.db'));
  try {
    return new UsageLedger(db).calls(threadId);
  } finally {
    db.close();
  }
}

describe('deepdesk run, audited', () => {
  it('records every model call with what the provider reported', async () => {
    t.server.push(
      { toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens: 300, completionTokens: 20, cachedTokens: 100 } },
      { text: 'Nothing here.', usage: { promptTokens: 400, completionTokens: 30 } },
    );
    const r = await run(['--thread', 'audited', 'what is here?']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(ledgerRows('audited').map((row) => [row.turn, row.purpose, row.inputTokens, row.outputTokens, row.cacheReadTokens, row.costUsd, row.failed])).toEqual([
      [1, 'agent', 300, 20, 100, null, false],
      [1, 'agent', 400, 30, 0, null, false],
    ]);
    t.server.push({ text: 'Still nothing.', usage: { promptTokens: 500, completionTokens: 5 } });
    expect((await run(['--thread', 'audited', 'and now?'])).code).toBe(0);
    expect(ledgerRows('audited').map((row) => row.turn)).toEqual([1, 1, 2]);
  });

  it('--max-cost pauses the run before the call that would cross it: run exits 1 with the paused line, at the price set in Settings', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: { 'openai-compatible:scripted-model': { input: 10, output: 10 } } }));
    t.server.push({ toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens: 20_000, completionTokens: 10 } }, { text: 'never asked' });
    const r = await run(['--max-cost', '0.21', 'list it']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^deepdesk run: paused: this run's budget of \$0\.21 is spent \(\$0\.20 \+ this call's \$0\.\d\d\)\n$/);
    expect(t.server.requests).toHaveLength(1);
  });

  it('--max-cost estimates a call from what the provider reported for the one before, so a provider that counts more than our tokenizer cannot take the run past it', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: { 'openai-compatible:scripted-model': { input: 1, output: 1 } } }));
    // The provider counts far more prompt tokens than our tokenizer does (its template, its
    // tokenizer): each call costs about $0.10 while our count of its prompt is a few thousand tokens.
    const step = (promptTokens: number) => ({ toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens, completionTokens: 10 } });
    t.server.push(step(100_000), step(101_000), step(102_000), { text: 'never asked' });
    const r = await run(['--thread', 'metered', '--max-cost', '0.25', 'list it again and again']);
    // Two calls ($0.2010) fit; a third (about $0.10 more, as the provider counts) would not.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^deepdesk run: paused: this run's budget of \$0\.25 is spent \(\$0\.20 \+ this call's \$0\.1\d\)\n$/);
    expect(t.server.requests).toHaveLength(2);
    const spent = ledgerRows('metered').reduce((sum, row) => sum + (row.costUsd ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(0.25);
  });

  it('a price set after a thread’s calls counts them: its budget per thread is kept with their cost at that price', async () => {
    t.server.push({ text: 'Unpriced.', usage: { promptTokens: 20_000, completionTokens: 10 } }, { text: 'never asked' });
    expect((await run(['--thread', 'priced-later', 'first'])).code).toBe(0);
    expect(ledgerRows('priced-later').map((row) => row.costUsd)).toEqual([null]);
    // $10 per million tokens: the first call cost $0.2001, past a budget of $0.15.
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: { 'openai-compatible:scripted-model': { input: 10, output: 10 } }, threadBudgetUsd: 0.15 }));
    const r = await run(['--thread', 'priced-later', 'second']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^deepdesk run: paused: the thread's budget of \$0\.15 is spent \(\$0\.20 \+ this call's \$0\.\d\d\)\n$/);
    expect(t.server.requests).toHaveLength(1);
    // The ledger keeps what it recorded: the price is applied when it is read.
    expect(ledgerRows('priced-later').map((row) => row.costUsd)).toEqual([null]);
  });

  it('--max-cost with a model of unknown price makes no call, and says how to set one', async () => {
    t.server.push({ text: 'never asked' });
    const r = await run(['--max-cost', '$1', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the price of openai-compatible:scripted-model is unknown');
    expect(r.stderr).toContain('Settings › Prices');
    expect(t.server.requests).toHaveLength(0);
  });

  it('refuses a --max-cost that is not an amount', async () => {
    const r = await run(['--max-cost', 'lots', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-cost must be a positive amount of US dollars');
  });

  it('sends a turn’s spans to an OTLP/HTTP collector, and the command joins the trace through TRACEPARENT', async () => {
    receiver = await startOtlpReceiver();
    t.server.push(
      { toolCalls: [{ name: 'execute', args: { command: 'printf "tp=%s" "$TRACEPARENT"' } }], usage: { promptTokens: 300, completionTokens: 20 } },
      { text: 'Done.', usage: { promptTokens: 400, completionTokens: 30 } },
    );
    const r = await run(['--thread', 'traced', '--approve', 'auto', 'print it'], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'deepdesk-test' });
    expect(r.code).toBe(0);
    // The run flushed before it ended: the spans are there when the command returns.
    const spans = receiver.spans();
    const agent = spans.find((s) => s.name.startsWith('invoke_agent'));
    expect(agent?.attributes['gen_ai.conversation.id']).toBe('traced');
    const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.map((s) => [s.attributes['gen_ai.usage.input_tokens'], s.attributes['gen_ai.usage.output_tokens']])).toEqual([
      [300, 20],
      [400, 30],
    ]);
    const tool = spans.find((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tool?.attributes['gen_ai.tool.name']).toBe('execute');
    expect(tool?.parentSpanId).toBe(agent?.spanId);
    const toolResult = JSON.stringify(t.server.requests[1]?.messages.at(-1)?.content);
    expect(toolResult).toContain(`tp=00-${tool?.traceId}-${tool?.spanId}-01`);
    // No content leaves unless asked.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('print it');
  });

  it('sends the spans to a collector named only in Settings, with no OTEL_ variable set (the SDK is loaded for it)', async () => {
    receiver = await startOtlpReceiver();
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ telemetry: { otlpEndpoint: receiver.url } }));
    t.server.push({ text: 'Done.', usage: { promptTokens: 300, completionTokens: 20 } });
    const noOtelVariable = Object.fromEntries(Object.keys({ ...process.env, ...NO_TELEMETRY }).filter((name) => name.startsWith('OTEL_')).map((name) => [name, undefined]));
    const r = await run(['--thread', 'traced-by-settings', 'hi'], noOtelVariable);
    expect(r.code).toBe(0);
    const spans = receiver.spans();
    expect(spans.find((s) => s.name.startsWith('invoke_agent'))?.attributes['gen_ai.conversation.id']).toBe('traced-by-settings');
    expect(spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat').map((s) => s.attributes['gen_ai.usage.input_tokens'])).toEqual([300]);
  });

  it('an unreachable collector does not fail the run', async () => {
    const port = await closedLoopbackPort();
    await answersWith({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
  });
});

describe('deepdesk run, traced to LangSmith', () => {
  it('sends each turn as a run tree with the coding-agent metadata of the folder’s repository', async () => {
    const ls = await startLangSmithReceiver({ gzip: false });
    try {
      const git = (...args: string[]) => execFileSync('git', ['-C', t.folder, ...args], { stdio: 'pipe' });
      git('init', '-q', '-b', 'feature/audit');
      git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'first');
      git('remote', 'add', 'origin', 'https://ada:secret-token@github.com/acme/widgets.git');
      t.server.push({ toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens: 300, completionTokens: 20 } }, { text: 'Done.', usage: { promptTokens: 400, completionTokens: 30 } });
      const r = await run(['--thread', 'smith', '--approve', 'auto', 'look'], { LANGSMITH_TRACING: 'true', LANGSMITH_API_KEY: 'lsv2-k', LANGSMITH_ENDPOINT: ls.url, LANGSMITH_PROJECT: 'audits' });
      expect(r.code).toBe(0);
      await expect.poll(() => ls.runs().filter((run) => run.end_time !== undefined).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(4);
      const runs = ls.runs();
      const root = runs.find((run) => run.parent_run_id === undefined)!;
      expect(root.session_name).toBe('audits');
      const metadata = root.extra?.metadata ?? {};
      expect(metadata).toMatchObject({ ls_agent_purpose: 'coding', thread_id: 'smith', turn_number: 1, cwd: t.folder, git_branch: 'feature/audit', repository_url: 'https://github.com/acme/widgets' });
      expect(String(metadata.git_commit_sha)).toMatch(/^[0-9a-f]{40}$/);
      expect(JSON.stringify(runs)).not.toContain('secret-token');
      expect(runs.filter((run) => run.run_type === 'llm' && run.parent_run_id === root.id)).toHaveLength(2);
      expect(runs.filter((run) => run.run_type === 'tool' && run.parent_run_id === root.id).map((run) => run.name)).toEqual(['ls']);
    } finally {
      await ls.close();
    }
  });

  it('an unreachable LangSmith does not fail the run', async () => {
    const port = await closedLoopbackPort();
    await answersWith({ LANGSMITH_TRACING: 'true', LANGSMITH_API_KEY: 'k', LANGSMITH_ENDPOINT: `http://127.0.0.1:${port}` });
  });
});
