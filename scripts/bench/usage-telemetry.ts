// Issue 41: what auditing a run costs per model call — the usage ledger alone (SQLite, always
// on: "telemetry off") and the ledger with OpenTelemetry and LangSmith exporting to local
// receivers ("telemetry on") — beside the same run unaudited, interleaved so that load from
// elsewhere falls on all three alike. Goal: ≤ 1 ms per call off, ≤ 3 ms on. And what an
// unreachable collector adds to a warm `deepdesk run` (SPEC §17: it never holds a run up).

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAgentDefinition } from '../../src-main/core/agent/create-agent';
import { runAgent, type RunOptions } from '../../src-main/core/agent/loop';
import { newThreadState } from '../../src-main/core/agent/types';
import { createDefaultMounts } from '../../src-main/core/backends/mounts/mounts';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import { closedLoopbackPort } from '../../src-main/core/models/testing/loopback';
import { startScriptedServer } from '../../src-main/core/models/testing/scripted-server';
import { langsmithTelemetry } from '../../src-main/core/telemetry/langsmith';
import { combineTelemetry, type Telemetry } from '../../src-main/core/telemetry/observer';
import { otelTelemetry } from '../../src-main/core/telemetry/otel';
import { startOtlpReceiver } from '../../src-main/core/telemetry/otlp-receiver.test-support';
import { UsageLedger } from '../../src-main/core/telemetry/usage-ledger';
import { ReadGuard } from '../../src-main/core/tools/read-guard';
import { deepdesk } from './agent-host';
import { InstantModel, makeWorkspace } from './harness';
import { formatMs, median, timeInterleaved } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report, type Section } from './report';

const STEPS = 40;
const CALLS = STEPS + 1;
const OFF_TARGET_MS = 1;
const ON_TARGET_MS = 3;
/** What an unreachable collector may add to a run: less than the exporters' flush bound (3 s) and their back-off. */
const UNREACHABLE_TARGET_MS = 1_000;

/** Accepts whatever LangSmith's client posts, as its API would. */
async function startSink(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function benchUsageTelemetry(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 41 · usage and telemetry');
  progress('usage ledger and exporters per model call');
  const ws = makeWorkspace();
  const db = openDatabase(path.join(ws.dataDir, 'deepdesk.db'));
  const mounts = createDefaultMounts({ folder: ws.folder, db, execute: false });
  const ledger = new UsageLedger(db);
  const otlp = await startOtlpReceiver();
  const sink = await startSink();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, LANGSMITH_TRACING: 'true', LANGSMITH_API_KEY: 'bench', LANGSMITH_ENDPOINT: sink.url };
  const otel = otelTelemetry({ env, serviceVersion: 'bench' });
  const langsmith = langsmithTelemetry({ env, context: { cwd: ws.folder, sandboxType: 'none' } });
  const exporters = [otel, langsmith];
  try {
    if (otel === undefined || langsmith === undefined) throw new Error('an exporter did not start');
    const run = async (telemetry: Telemetry | undefined): Promise<string> => {
      const model = new InstantModel(STEPS);
      const definition = createAgentDefinition({ model, backend: mounts.backend, rules: () => [{ tools: ['*'], decision: 'allow' }], broker: { decide: async () => ({ type: 'reject' }) } });
      const runOptions: RunOptions = { emit: () => undefined, persist: async () => undefined, guard: new ReadGuard(), ...(telemetry ? { telemetry } : {}) };
      const result = await runAgent(definition, newThreadState(`bench-${Math.random().toString(36).slice(2)}`), { role: 'user', content: 'List the folders.' }, runOptions);
      if (result.reason !== 'completed') throw new Error(`run ended with ${result.reason}`);
      return `${model.callTimes.length} calls`;
    };
    const results = await timeInterleaved(
      {
        bare: { run: () => run(undefined) },
        ledger: { run: () => run(ledger.telemetry()) },
        otel: { run: () => run(combineTelemetry([ledger.telemetry(), otel])) },
        langsmith: { run: () => run(combineTelemetry([ledger.telemetry(), langsmith])) },
        all: { run: () => run(combineTelemetry([ledger.telemetry(), otel, langsmith])) },
      },
      { runs: Math.max(5, options.runs), budgetMs: 60_000 },
    );
    for (const [name, result] of Object.entries(results)) if (result.error !== undefined) throw new Error(`${name}: ${result.error}`);
    const bare = median(results.bare!.times) / CALLS;
    const off = median(results.ledger!.times) / CALLS - bare;
    const on = median(results.all!.times) / CALLS - bare;
    section.rows.push({ name: `per model call, unaudited (${STEPS}-step runs, instant in-process model)`, ours: `${formatMs(bare)}/call` });
    section.rows.push({ name: '  added by the usage ledger (telemetry off)', ours: `${formatMs(Math.max(0, off))}/call`, target: `≤ ${OFF_TARGET_MS} ms/call`, result: verdict(off <= OFF_TARGET_MS) });
    section.rows.push({ name: '  added by ledger + OpenTelemetry', ours: `${formatMs(Math.max(0, median(results.otel!.times) / CALLS - bare))}/call` });
    section.rows.push({ name: '  added by ledger + LangSmith', ours: `${formatMs(Math.max(0, median(results.langsmith!.times) / CALLS - bare))}/call` });
    section.rows.push({
      name: '  added by ledger + OpenTelemetry + LangSmith (telemetry on)',
      ours: `${formatMs(Math.max(0, on))}/call`,
      target: `≤ ${ON_TARGET_MS} ms/call`,
      result: verdict(on <= ON_TARGET_MS),
    });
    await Promise.all(exporters.map((t) => t?.flush?.()));
    section.notes.push(`spans received by the local OTLP receiver: ${otlp.spans().length}; the step over HTTP this is set against was 9.7 ms (Issue 3 · harness)`);
    await unreachableCollectorRows(section, options);
  } finally {
    await Promise.allSettled(exporters.map((t) => t?.shutdown?.()));
    ledger.close();
    db.close();
    await otlp.close();
    await sink.close();
    ws.cleanup();
  }
}

/** A warm `deepdesk run "hi"` (host up, instant model) with an OpenTelemetry or LangSmith endpoint nobody listens on, beside the same run without one, interleaved. */
async function unreachableCollectorRows(section: Section, options: BenchOptions): Promise<void> {
  progress('deepdesk run with an unreachable collector');
  const root = path.resolve(import.meta.dirname, '../..');
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-unreachable-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-unreachable-data-'));
  const server = await startScriptedServer();
  const nowhere = `http://127.0.0.1:${await closedLoopbackPort()}`;
  const none = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', LANGSMITH_TRACING: '', LANGCHAIN_TRACING_V2: '' };
  const run = (env: NodeJS.ProcessEnv) => () => {
    server.push({ text: 'Fine.' });
    return deepdesk(path.join(root, 'bin/deepdesk.mjs'), ['run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, 'hi'], { ...none, ...env });
  };
  try {
    const results = await timeInterleaved(
      { none: { run: run({}) }, otel: { run: run({ OTEL_EXPORTER_OTLP_ENDPOINT: nowhere }) }, langsmith: { run: run({ LANGSMITH_TRACING: 'true', LANGSMITH_API_KEY: 'k', LANGSMITH_ENDPOINT: nowhere }) } },
      { runs: Math.max(5, options.runs), budgetMs: 60_000 },
    );
    const floor = results.none!.error === undefined ? median(results.none!.times) : undefined;
    for (const [name, label] of [['otel', 'an OTLP collector'], ['langsmith', 'LangSmith']] as const) {
      const result = results[name]!;
      if (floor === undefined || result.error !== undefined) {
        section.rows.push({ name: `deepdesk run "hi" with ${label} nobody listens on`, ours: 'failed', result: result.error ?? results.none!.error ?? '' });
        continue;
      }
      const added = median(result.times) - floor;
      section.rows.push({ name: `deepdesk run "hi" (host warm) with ${label} nobody listens on, beside none`, ours: `+${formatMs(Math.max(0, added))}`, floor: formatMs(floor), target: `≤ +${formatMs(UNREACHABLE_TARGET_MS)}`, result: verdict(added <= UNREACHABLE_TARGET_MS) });
    }
  } finally {
    await server.close();
    // The warm host stops once its data folder is gone.
    for (const dir of [folder, dataDir]) rmSync(dir, { recursive: true, force: true });
  }
}
