// Issue 3: the agent loop's own cost per step over a 300-message thread (a model that
// answers at once, in process), the same over the scripted OpenAI-compatible server, the
// deepagents agent over that server, and token-estimation throughput.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAgentDefinition } from '../../src-main/core/agent/create-agent';
import { runAgent } from '../../src-main/core/agent/loop';
import type { PermissionRule } from '../../src-main/core/agent/permissions/rules';
import { countRequestTokens, countTextTokens } from '../../src-main/core/agent/token-count';
import { makePdf, makePng } from '../../src-main/core/media/testing/fixtures';
import { newThreadState, type ThreadState } from '../../src-main/core/agent/types';
import { createDefaultMounts } from '../../src-main/core/backends/mounts/mounts';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import { createChatModel } from '../../src-main/core/models/create-model';
import { startScriptedServer, type ScriptStep } from '../../src-main/core/models/testing/scripted-server';
import type { ChatMessage, ChatModel, ModelEvent, ModelRequest } from '../../src-main/core/models/types';
import { ReadGuard } from '../../src-main/core/tools/read-guard';
import { ThreadStore } from '../../src-main/app/threads/thread-store';
import { errorText, formatMs, formatRatio, median, percentile, timeRuns, withTimeout } from './measure';
import type { BenchOptions } from './options';
import { loadReference } from './reference';
import { progress, verdict, type Report, type Section } from './report';
import { benchSkills } from './skills';
import { generateText, makeRng } from './text-gen';
import { benchHooks } from './hooks';
import { THREAD_MESSAGES, threadMessages } from './thread-fixture';

/** Tool-calling steps per run; one more model call answers with text. */
const STEPS = 40;
const STEP_TARGET_MS = 5;
const RUN_TIMEOUT_MS = 90_000;
const ALLOW_ALL: PermissionRule[] = [{ tools: ['*'], decision: 'allow' }];
/** Folders of the workspace listed in turn: the loop's repeated-call guard stops a run that calls the same tool the same way step after step. */
const LS_PATHS = ['/', '/src', '/src/area0', '/src/area1', '/src/area2', '/src/area3'];
const lsArgs = (step: number): { path: string } => ({ path: LS_PATHS[step % LS_PATHS.length]! });

/** A model that answers at once: `ls` of the workspace's folders in turn for `toolSteps` calls, then text. Records when each call starts. */
export class InstantModel implements ChatModel {
  readonly id = 'openai-compatible:instant-stub';
  readonly provider = 'openai-compatible' as const;
  readonly contextWindow = 200_000;
  readonly callTimes: number[] = [];

  constructor(private readonly toolSteps: number) {}

  async *stream(_request: ModelRequest): AsyncIterable<ModelEvent> {
    const n = this.callTimes.length;
    this.callTimes.push(performance.now());
    const usage = { inputTokens: 1_000, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
    if (n < this.toolSteps) {
      const id = `call_bench_${n}`;
      yield { type: 'tool-call-start', id, name: 'ls' };
      const args = lsArgs(n);
      yield { type: 'tool-call', call: { id, name: 'ls', args, argsText: JSON.stringify(args) } };
      yield { type: 'finish', stopReason: 'tool-calls', usage };
    } else {
      yield { type: 'text-delta', text: 'Done.' };
      yield { type: 'finish', stopReason: 'stop', usage };
    }
  }
}

/** A small project folder with an AGENTS.md, as the memory middleware reads one every step. */
export function makeWorkspace(): { folder: string; dataDir: string; cleanup: () => void } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-ws-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-data-'));
  const rng = makeRng(7);
  fs.writeFileSync(path.join(folder, 'AGENTS.md'), generateText(rng, 'md', 1_500));
  for (let i = 0; i < 20; i++) {
    fs.mkdirSync(path.join(folder, 'src', `area${i % 4}`), { recursive: true });
    fs.writeFileSync(path.join(folder, 'src', `area${i % 4}`, `file${i}.ts`), generateText(rng, 'ts', 2_000));
  }
  return {
    folder,
    dataDir,
    cleanup: () => {
      fs.rmSync(folder, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface StepStats {
  /** Steps after the first (only the new messages are counted then). */
  steady: number[];
  /** The first step: every message of the loaded thread is new to the token counter. */
  first: number[];
}

function stepsFrom(times: number[], stats: StepStats): void {
  for (let k = 0; k + 1 < times.length; k++) (k === 0 ? stats.first : stats.steady).push(times[k + 1]! - times[k]!);
}

type Persist = 'none' | 'sqlite';

/** Deepdesk's loop over a 300-message thread; the model's call times mark the steps. */
async function deepdeskRun(model: ChatModel & { callTimes?: number[] }, persist: Persist, ws: { folder: string; dataDir: string }): Promise<ThreadState> {
  const db = openDatabase(path.join(ws.dataDir, 'deepdesk.db'));
  try {
    const mounts = createDefaultMounts({ folder: ws.folder, db, execute: false });
    const definition = createAgentDefinition({
      model,
      backend: mounts.backend,
      rules: () => ALLOW_ALL,
      broker: { decide: async () => ({ type: 'reject', message: 'benchmark' }) },
    });
    const state = newThreadState(`bench-${Math.random().toString(36).slice(2)}`);
    state.messages = threadMessages();
    const store = persist === 'sqlite' ? new ThreadStore(db) : null;
    if (store) store.save(state);
    const result = await withTimeout(
      runAgent(definition, state, { role: 'user', content: 'Continue with the next file.' }, {
        emit: () => undefined,
        persist: async (s) => store?.save(s),
        guard: new ReadGuard(),
      }),
      RUN_TIMEOUT_MS,
      'agent run',
    );
    if (result.reason !== 'completed') throw new Error(`run ended with ${result.reason}: ${result.error?.message ?? ''}`);
    return state;
  } finally {
    db.close();
  }
}

function toolSteps(onRequest: () => void): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let i = 0; i < STEPS; i++) {
    steps.push(() => {
      onRequest();
      return { toolCalls: [{ name: 'ls', args: lsArgs(i) }] };
    });
  }
  steps.push(() => {
    onRequest();
    return { text: 'Done.' };
  });
  return steps;
}

async function benchInstant(section: Section, options: BenchOptions, persist: Persist): Promise<void> {
  const stats: StepStats = { steady: [], first: [] };
  const ws = makeWorkspace();
  try {
    await timeRuns(async () => {
      const model = new InstantModel(STEPS);
      await deepdeskRun(model, persist, ws);
      stepsFrom(model.callTimes, stats);
    }, { runs: Math.min(options.runs, 3), budgetMs: 30_000 });
  } finally {
    ws.cleanup();
  }
  const steady = median(stats.steady);
  const label = persist === 'sqlite' ? 'thread saved to SQLite (as the app does)' : 'persist no-op';
  section.rows.push({
    name: `per step, instant in-process model, ${label}`,
    ours: `${formatMs(steady)}/step (p95 ${formatMs(percentile(stats.steady, 95))})`,
    target: `< ${STEP_TARGET_MS} ms/step`,
    result: verdict(steady < STEP_TARGET_MS),
  });
  section.rows.push({ name: `  first step (${THREAD_MESSAGES} loaded messages counted once)`, ours: formatMs(median(stats.first)) });
}

async function benchScripted(section: Section, options: BenchOptions): Promise<number> {
  const stats: StepStats = { steady: [], first: [] };
  const ws = makeWorkspace();
  try {
    await timeRuns(async () => {
      const arrivals: number[] = [];
      const server = await startScriptedServer(toolSteps(() => arrivals.push(performance.now())));
      try {
        const model = createChatModel({ model: 'openai-compatible:scripted-model', baseUrl: server.url, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
        await deepdeskRun(model, 'sqlite', ws);
      } finally {
        await server.close();
      }
      stepsFrom(arrivals, stats);
    }, { runs: Math.min(options.runs, 3), budgetMs: 30_000 });
  } finally {
    ws.cleanup();
  }
  return median(stats.steady);
}

async function benchDeepagents(options: BenchOptions): Promise<{ ms: number } | { error: string }> {
  const ref = await loadReference();
  if (!ref.ok) return { error: `not comparable here: deepagents does not load (${ref.error})` };
  const lc = await Promise.all([import('@langchain/openai'), import('@langchain/core/messages'), import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]).catch(
    (err: unknown) => errorText(err),
  );
  if (typeof lc === 'string') return { error: `not comparable here: @langchain/openai does not load (${lc})` };
  const [{ ChatOpenAI }, { AIMessage, HumanMessage, ToolMessage }, { Tiktoken }, { default: o200k }] = lc;
  const toLangChain = (m: ChatMessage) => {
    const text = typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (m.role === 'user') return new HumanMessage(text);
    if (m.role === 'tool') return new ToolMessage({ content: text, tool_call_id: m.toolCallId, name: m.toolName });
    return new AIMessage({ content: text, tool_calls: (m.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args as Record<string, unknown>, type: 'tool_call' as const })) });
  };
  const stats: StepStats = { steady: [], first: [] };
  const ws = makeWorkspace();
  try {
    await timeRuns(async () => {
      const arrivals: number[] = [];
      const server = await startScriptedServer(toolSteps(() => arrivals.push(performance.now())));
      try {
        const model = new ChatOpenAI({ model: 'scripted-model', apiKey: 'bench', configuration: { baseURL: server.url }, maxRetries: 0, streaming: true });
        // A streaming ChatOpenAI estimates usage with tiktoken, whose ranks it downloads on
        // first use; give it the encoder it would have cached, so nothing leaves the machine.
        provideEncoder((model as unknown as { completions: object }).completions, new Tiktoken(o200k));
        const agent = ref.module.createDeepAgent({ model, backend: new ref.module.FilesystemBackend({ rootDir: ws.folder, virtualMode: true }) });
        const messages = [...threadMessages().map(toLangChain), new HumanMessage('Continue with the next file.')];
        await withTimeout(agent.invoke({ messages }, { recursionLimit: 10_000 }), RUN_TIMEOUT_MS, 'deepagents run');
        if (arrivals.length !== STEPS + 1) throw new Error(`deepagents made ${arrivals.length} model calls, expected ${STEPS + 1}`);
      } finally {
        await server.close();
      }
      stepsFrom(arrivals, stats);
    }, { runs: Math.min(options.runs, 3), budgetMs: 40_000 });
  } catch (err) {
    return { error: `error: ${errorText(err)}` };
  } finally {
    ws.cleanup();
  }
  return { ms: median(stats.steady) };
}

/**
 * ChatOpenAI instances are cloned per call (bindTools), so the encoder is supplied through
 * the class: getNumTokens then runs unchanged with the encoder it would have downloaded.
 */
function provideEncoder(instance: object, encoder: unknown): void {
  const proto = Object.getPrototypeOf(instance) as { getNumTokens: (this: { _encoding?: unknown }, content: unknown) => Promise<number>; __benchEncoder?: true };
  if (proto.__benchEncoder) return;
  const original = proto.getNumTokens;
  proto.getNumTokens = function (this: { _encoding?: unknown }, content: unknown) {
    this._encoding ??= encoder;
    return original.call(this, content);
  };
  proto.__benchEncoder = true;
}

/** ~10 MB of real mixed text and code: the TypeScript compiler's lib folder. */
function tokenCorpus(): string[] {
  const lib = path.join(process.cwd(), 'node_modules', 'typescript', 'lib');
  const names = fs.readdirSync(lib).filter((n) => n.endsWith('.d.ts') || n.endsWith('.js')).sort();
  const chunks: string[] = [];
  let bytes = 0;
  const want = 10 * 1024 * 1024;
  // Declaration files (prose-heavy doc comments) first, then compiler source (code).
  for (const name of [...names.filter((n) => n.endsWith('.d.ts')), ...names.filter((n) => n.endsWith('.js'))]) {
    const text = fs.readFileSync(path.join(lib, name), 'utf8');
    // Message-sized pieces, cut at line ends, as tool results and file reads are.
    for (let pos = 0; pos < text.length && bytes < want; ) {
      let end = Math.min(text.length, pos + 16_000);
      const nl = text.indexOf('\n', end);
      end = nl < 0 ? text.length : nl + 1;
      const piece = text.slice(pos, end);
      chunks.push(piece);
      bytes += Buffer.byteLength(piece);
      pos = end;
    }
    if (bytes >= want) break;
  }
  return chunks;
}

async function benchTokens(section: Section, options: BenchOptions): Promise<void> {
  progress('token estimation throughput on ~10 MB of text and code');
  const chunks = tokenCorpus();
  const bytes = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
  const mb = bytes / (1024 * 1024);
  let tokens = 0;
  const textTimes = await timeRuns(async () => {
    tokens = 0;
    for (const c of chunks) tokens += countTextTokens(c);
  }, { runs: Math.min(options.runs, 3), budgetMs: 60_000 });
  const textRate = mb / (median(textTimes) / 1000);
  section.rows.push({
    name: `countTextTokens: ${mb.toFixed(1)} MB, ${chunks.length} pieces (${(tokens / 1e6).toFixed(2)} M tokens)`,
    ours: `${textRate.toFixed(2)} MB/s (${formatMs(median(textTimes))})`,
    target: '> 10 MB/s',
    result: textRate > 10 ? 'PASS' : `MISS (${formatRatio(10, textRate)} short)`,
  });
  const request = () => ({
    system: 'You are a coding agent.',
    tools: [],
    messages: chunks.map((c, i): ChatMessage => ({ role: 'tool', toolCallId: `c${i}`, toolName: 'read_file', content: c })),
  });
  const requestTimes = await timeRuns(async () => countRequestTokens(request()), { runs: Math.min(options.runs, 3), budgetMs: 60_000 });
  const requestRate = mb / (median(requestTimes) / 1000);
  section.rows.push({
    name: `countRequestTokens: the same as ${chunks.length} new messages`,
    ours: `${requestRate.toFixed(2)} MB/s (${formatMs(median(requestTimes))})`,
    target: '> 10 MB/s',
    result: requestRate > 10 ? 'PASS' : `MISS (${formatRatio(10, requestRate)} short)`,
  });
  const cachedReq = request();
  countRequestTokens(cachedReq);
  const cachedTimes = await timeRuns(async () => countRequestTokens(cachedReq), { runs: 5, budgetMs: 5_000 });
  section.rows.push({ name: '  same request again (per-message cache)', ours: formatMs(median(cachedTimes)) });
  await benchMediaTokens(section, options);
}

/** Media blocks costed by provider: measured once per block, then arithmetic for any provider. */
async function benchMediaTokens(section: Section, options: BenchOptions): Promise<void> {
  const png = makePng(1000, 1000).toString('base64');
  const pdf = makePdf(['first page', 'second page']).toString('base64');
  const request = () => ({
    system: 'You are a coding agent.',
    tools: [],
    messages: Array.from({ length: 200 }, (_, i): ChatMessage => ({
      role: 'tool',
      toolCallId: `m${i}`,
      toolName: 'read_file',
      content: [
        { type: 'text', text: `Image file /pic${i}.png` },
        { type: 'image', mimeType: 'image/png', data: png, name: `/pic${i}.png` },
        { type: 'file', mimeType: 'application/pdf', data: pdf, name: `/doc${i}.pdf` },
      ],
    })),
  });
  const firstTimes = await timeRuns(async () => countRequestTokens(request(), { provider: 'anthropic' }), { runs: Math.min(options.runs, 3), budgetMs: 20_000 });
  section.rows.push({ name: 'countRequestTokens: 200 new messages, each a 1000×1000 PNG + a 2-page PDF (Anthropic costs)', ours: formatMs(median(firstTimes)) });
  const cached = request();
  countRequestTokens(cached, { provider: 'anthropic' });
  const providers = ['google', 'openai', 'anthropic'] as const;
  let n = 0;
  const switchTimes = await timeRuns(async () => countRequestTokens(cached, { provider: providers[n++ % providers.length]! }), { runs: 6, budgetMs: 5_000 });
  section.rows.push({ name: '  same request, another provider each time (cached measures)', ours: formatMs(median(switchTimes)) });
}

export async function benchHarness(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section(`Issue 3 · harness overhead per step (${THREAD_MESSAGES}-message thread, ${STEPS} tool steps of ls / + 1 answer)`);
  progress('agent loop, instant in-process model');
  for (const persist of ['none', 'sqlite'] as const) {
    await benchInstant(section, options, persist).catch((err: unknown) => section.rows.push({ name: `per step (${persist})`, ours: `error: ${errorText(err)}` }));
  }
  progress('agent loop over the scripted server (deepdesk, then deepagents)');
  const scripted = await benchScripted(section, options).catch((err: unknown) => ({ error: errorText(err) }) as const);
  const reference = await benchDeepagents(options);
  const oursMs = typeof scripted === 'number' ? scripted : NaN;
  const refMs = 'ms' in reference ? reference.ms : NaN;
  section.rows.push({
    name: 'per step over the scripted server (HTTP + SSE)',
    ours: typeof scripted === 'number' ? `${formatMs(scripted)}/step` : `error: ${scripted.error}`,
    reference: 'ms' in reference ? `${formatMs(reference.ms)}/step` : reference.error,
    ratio: Number.isFinite(oursMs) && Number.isFinite(refMs) ? `${formatRatio(oursMs, refMs)} ref` : '',
    target: 'context only',
  });
  section.notes.push('step = from one model call to the next: request building, middleware, token count, tool run, persistence (and, over the server, HTTP and parsing); median over the steps after the first');
  section.notes.push('deepagents: createDeepAgent + ChatOpenAI (streaming) at the same scripted server, the same 300 messages as LangChain messages, FilesystemBackend on the same kind of folder');
  section.notes.push('deepagents: a streaming ChatOpenAI counts the prompt with js-tiktoken every call; it is handed the o200k encoder locally (it would download it)');
  const tokens = report.section('Issue 3 · token estimation (o200k_base, core/agent/o200k.ts)');
  tokens.notes.push('corpus: node_modules/typescript/lib (.d.ts prose and types first, then compiler .js), cut at line ends into ~16 KB message-sized pieces');
  await benchTokens(tokens, options).catch((err: unknown) => tokens.rows.push({ name: 'token estimation', ours: `error: ${errorText(err)}` }));
  await benchSkills(report, options);
  await benchHooks(report, options);
}
