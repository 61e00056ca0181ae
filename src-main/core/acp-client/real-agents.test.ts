// The real adapters (SPEC §22), installed from npm as devDependencies, in the real sandbox,
// against the project's scripted model servers through the metering proxy: no test contacts
// a vendor. Each: a turn, its write through Deepdesk (after the person allowed once, naming
// the agent; in `edit` mode unasked, as Deepdesk's own), and the proxy's ledger rows.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from '../sandbox';
import { folderSandboxPolicy } from '../sandbox/protected-entry-files';
import { DEFAULT_RULES } from '../agent/permissions/rules';
import type { ApprovalMode } from '../agent/permissions/modes';
import { costAt, resolvePrice } from '../models/model-info';
import { anthropicMessageStream, startScriptedAnthropicServer, type AnthropicReply } from '../models/testing/scripted-anthropic-server';
import { AcpClientSession, type AgentApprovalRequest, type SessionUpdate } from './acp-client';
import { startAgentProcess } from './agent-process';
import { liveProcesses } from '../process/spawn';
import { startScriptedGeminiServer, type GeminiRequest, type GeminiStep } from '../models/testing/scripted-gemini-server';
import { startMeteringProxy, type MeteringProxy, type MeteringProxyOptions } from './metering-proxy';
import { BudgetExceededError, type SpendNode } from '../spend/spend-tree';
import { budgetOf } from '../spend/spend-tree.test-support';
import type { RunObserver } from '../telemetry/observer';
import { recordingTelemetry, type RecordedRun } from '../telemetry/recording-telemetry.test-support';

const REPO = join(__dirname, '..', '..', '..');
const MODEL_PORT = 3129;
/** What Claude Code's vendor module drops (app/agents/vendors/claude-code.ts): its adapter skips every permission under IS_SANDBOX. */
const CLAUDE_DROPPED_ENV = ['IS_SANDBOX'];

function said(updates: SessionUpdate[]): string {
  return updates.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');
}

interface Scene {
  root: string;
  folder: string;
  dataDir: string;
  home: string;
  cleanup: Array<() => Promise<void> | void>;
}

function scene(): Scene {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-real-')));
  const folder = join(root, 'project');
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  mkdirSync(folder);
  mkdirSync(dataDir);
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PLANTED-SECRET');
  return { root, folder, dataDir, home, cleanup: [() => rmSync(root, { recursive: true, force: true })] };
}

/** The calls the proxy metered, as the listener of the agent's turn heard them. */
function meteredCalls(): { observer: () => RunObserver; calls: RecordedRun['modelCalls'] } {
  const telemetry = recordingTelemetry();
  const run = telemetry.turn({ threadId: 'thread', turn: 1, agentName: 'agent', depth: 0, provider: 'anthropic', model: '' });
  return { observer: () => run, calls: telemetry.turns[0]!.modelCalls };
}

/** Those answered whole, with their usage. */
const wholeCalls = (calls: RecordedRun['modelCalls']) => calls.filter((c) => c.outcome !== undefined && c.outcome.error === undefined);

const price = (usage: { model: string; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }): number | undefined =>
  costAt(resolvePrice(`anthropic:${usage.model}`), usage);

interface Claude {
  session: AcpClientSession;
  proxy: MeteringProxy;
  calls: RecordedRun['modelCalls'];
  asked: AgentApprovalRequest[];
  exited: Promise<unknown>;
  model: Awaited<ReturnType<typeof startScriptedAnthropicServer>>;
}

/** Claude Code through its ACP adapter, in the sandbox, on a scripted Anthropic server through the metering proxy. */
/** Each call of the agent's held at `node` at its worst case (Anthropic's price table), refused over the cap. */
function refusingHold(node: SpendNode): NonNullable<MeteringProxyOptions['hold']> {
  return async ({ model, promptTokens, maxOutputTokens }) => {
    try {
      return await node.hold({ id: `anthropic:${model}`, price: resolvePrice(`anthropic:${model}`) }, promptTokens, maxOutputTokens);
    } catch (err) {
      if (err instanceof BudgetExceededError) return { refused: err.message };
      throw err;
    }
  };
}

async function startClaude(
  s: Scene,
  script: (body: Record<string, unknown>) => AnthropicReply,
  cleanups: Array<() => Promise<void> | void>,
  budget?: { limitUsd: number; onBudget(): void },
  mode: ApprovalMode = 'ask',
): Promise<Claude> {
  const model = await startScriptedAnthropicServer(Array.from({ length: 200 }, () => script));
  cleanups.push(() => model.close());
  const { observer, calls } = meteredCalls();
  const proxy = await startMeteringProxy({
    upstream: model.url.replace(/\/v1$/, ''),
    upstreamHeaders: { 'x-api-key': 'the-persons-key' },
    agent: { name: 'claude-code', provider: 'anthropic' },
    observer,
    price,
    // Its calls held at a node of the budget tree that refuses (nothing here raises a cap).
    ...(budget ? { hold: refusingHold(budgetOf({ maxCostUsd: budget.limitUsd })), onBudget: budget.onBudget } : {}),
  });
  cleanups.push(() => proxy.close());
  const proc = await startAgentProcess({
    command: process.execPath,
    args: [join(REPO, 'node_modules', '@zed-industries', 'claude-code-acp', 'dist', 'index.js')],
    env: {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${MODEL_PORT}`,
      ANTHROPIC_API_KEY: 'placeholder',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
    folder: s.folder,
    dataDir: s.dataDir,
    privateHome: join(s.dataDir, 'agents', 'homes', 'claude-code'),
    forwards: [{ port: MODEL_PORT, socket: proxy.socket }],
    droppedEnv: CLAUDE_DROPPED_ENV,
  });
  const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: s.folder, dataDir: s.dataDir }));
  const backend = new LocalShellBackend({ rootDir: s.folder, ...(sandbox ? { sandbox } : {}) });
  const asked: AgentApprovalRequest[] = [];
  const session = new AcpClientSession(proc, {
    agent: 'Claude Code',
    folder: s.folder,
    backend,
    execute: (command, options) => backend.execute(command, options),
    rules: () => DEFAULT_RULES,
    mode: () => mode,
    ask: async (request) => {
      asked.push(request);
      return true;
    },
  });
  cleanups.push(() => session.stop());
  await session.initialize(120_000);
  await session.newSession();
  return { session, proxy, calls, asked, exited: proc.exited, model };
}

/** The text of every tool_result the agent sent back to its model. */
function toolResults(bodies: Array<Record<string, unknown>>): string {
  return bodies.map((b) => JSON.stringify(b.messages ?? [])).filter((t) => t.includes('tool_result')).join('\n');
}

describe('the real adapters in the sandbox, on scripted models', async () => {
  const available = (await detectSandbox()).available;
  const cleanups: Array<() => Promise<void> | void> = [];
  const realHome = process.env.HOME;
  afterEach(async () => {
    process.env.HOME = realHome;
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it.skipIf(!available)('Claude Code: writes through Deepdesk after the person allowed once; the proxy meters each call', async () => {
    const s = scene();
    cleanups.push(...s.cleanup);
    process.env.HOME = s.home;
    const target = join(s.folder, 'hello.txt');
    const script = (body: Record<string, unknown>): AnthropicReply => {
      const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
      const write = tools.find((t) => /(^|__)Write$/.test(t.name));
      const text = JSON.stringify(body.messages);
      if (!write) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      if (!text.includes('tool_result')) {
        return anthropicMessageStream([{ tool: write.name, id: 'toolu_01', json: [JSON.stringify({ file_path: target, content: 'hi from claude\n' })] }], 'tool_use');
      }
      return anthropicMessageStream([{ text: 'Wrote it.' }], 'end_turn');
    };
    const model = await startScriptedAnthropicServer(Array.from({ length: 30 }, () => script));
    cleanups.push(() => model.close());
    const { observer, calls } = meteredCalls();
    const proxy: MeteringProxy = await startMeteringProxy({ upstream: model.url.replace(/\/v1$/, ''), upstreamHeaders: { 'x-api-key': 'the-persons-key' }, agent: { name: 'claude-code', provider: 'anthropic' }, observer, price });
    cleanups.push(() => proxy.close());
    const proc = await startAgentProcess({
      command: process.execPath,
      args: [join(REPO, 'node_modules', '@zed-industries', 'claude-code-acp', 'dist', 'index.js')],
      env: {
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${MODEL_PORT}`,
        ANTHROPIC_API_KEY: 'placeholder',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
      folder: s.folder,
      dataDir: s.dataDir,
      privateHome: join(s.dataDir, 'agents', 'homes', 'claude-code'),
      forwards: [{ port: MODEL_PORT, socket: proxy.socket }],
      droppedEnv: CLAUDE_DROPPED_ENV,
    });
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: s.folder, dataDir: s.dataDir }));
    const backend = new LocalShellBackend({ rootDir: s.folder, ...(sandbox ? { sandbox } : {}) });
    const asked: AgentApprovalRequest[] = [];
    const session = new AcpClientSession(proc, {
      agent: 'Claude Code',
      folder: s.folder,
      backend,
      execute: (command, options) => backend.execute(command, options),
      rules: () => DEFAULT_RULES,
      ask: async (request) => {
        asked.push(request);
        return true;
      },
    });
    cleanups.push(() => session.stop());
    const init = await session.initialize(120_000);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    await session.newSession();
    const turn = await session.prompt('Write hello.txt');
    expect(turn.stopReason).toBe('end_turn');
    expect(readFileSync(target, 'utf8')).toBe('hi from claude\n');
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(asked[0]).toMatchObject({ agent: 'Claude Code' });
    expect(said(turn.updates)).toContain('Wrote it.');
    // Each model response metered, with its usage; the person's key, never the agent's placeholder, upstream.
    const metered = wholeCalls(calls);
    expect(metered.length).toBeGreaterThanOrEqual(2);
    expect(metered[0]?.outcome?.usage).toMatchObject({ inputTokens: 162, outputTokens: 30 });
    expect(metered[0]?.info).toMatchObject({ purpose: 'other-agent', agent: 'claude-code' });
    expect(model.headers.every((h) => h['x-api-key'] === 'the-persons-key')).toBe(true);
  }, 240_000);

  it.skipIf(!available)('Claude Code in edit mode: its Write lands through Deepdesk unasked, as Deepdesk\'s own write_file would', async () => {
    const s = scene();
    cleanups.push(...s.cleanup);
    process.env.HOME = s.home;
    const target = join(s.folder, 'hello.txt');
    const script = (body: Record<string, unknown>): AnthropicReply => {
      const write = ((body.tools as Array<{ name: string }> | undefined) ?? []).find((t) => /(^|__)Write$/.test(t.name));
      if (!write) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      if (!JSON.stringify(body.messages).includes('tool_result')) return anthropicMessageStream([{ tool: write.name, id: 'toolu_01', json: [JSON.stringify({ file_path: target, content: 'unasked\n' })] }], 'tool_use');
      return anthropicMessageStream([{ text: 'Wrote it.' }], 'end_turn');
    };
    const claude = await startClaude(s, script, cleanups, undefined, 'edit');
    const turn = await claude.session.prompt('Write hello.txt');
    expect(turn.stopReason).toBe('end_turn');
    expect(readFileSync(target, 'utf8')).toBe('unasked\n');
    expect(claude.asked).toEqual([]);
  }, 240_000);

  it.skipIf(!available)("Claude Code: its own Grep cannot read the key planted in the person's home", async () => {
    const s = scene();
    cleanups.push(...s.cleanup);
    process.env.HOME = s.home;
    const script = (body: Record<string, unknown>): AnthropicReply => {
      const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
      const grep = tools.find((t) => t.name === 'Grep');
      const text = JSON.stringify(body.messages);
      if (!grep) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      if (!text.includes('tool_result')) {
        return anthropicMessageStream([{ tool: 'Grep', id: 'toolu_02', json: [JSON.stringify({ pattern: 'PLANTED', path: join(s.home, '.ssh'), output_mode: 'content' })] }], 'tool_use');
      }
      return anthropicMessageStream([{ text: 'Searched.' }], 'end_turn');
    };
    const claude = await startClaude(s, script, cleanups);
    const turn = await claude.session.prompt('Search my keys');
    expect(turn.stopReason).toBe('end_turn');
    const results = toolResults(claude.model.bodies);
    // The Grep ran (its result went back to the model), and found nothing it may not read.
    expect(results).toContain('toolu_02');
    expect(results).not.toContain('PLANTED-SECRET');
    expect(said(turn.updates)).not.toContain('PLANTED-SECRET');
  }, 240_000);

  it.skipIf(!available)('Claude Code: a call whose worst case would cross the budget is refused, the turn is cancelled and the tree ends; spend ≤ budget + one call', async () => {
    const s = scene();
    cleanups.push(...s.cleanup);
    process.env.HOME = s.home;
    writeFileSync(join(s.folder, 'a.txt'), 'a');
    // A model that never stops: every main call asks for another Glob (run in its own process, unasked).
    let n = 0;
    const script = (body: Record<string, unknown>): AnthropicReply => {
      const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
      if (!tools.some((t) => t.name === 'Glob')) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      n++;
      // A guard, should the budget fail to stop it: the test then fails on its counts, not its time.
      if (n > 40) return anthropicMessageStream([{ text: 'gave up' }], 'end_turn');
      const reply = anthropicMessageStream([{ tool: 'Glob', id: `toolu_g${n}`, json: [JSON.stringify({ pattern: `*${n}*` })] }], 'tool_use');
      // Each answer reports a large prompt ($0.15), so the spend mounts towards the budget.
      (reply as { sse: Array<{ message?: { usage?: Record<string, number> } }> }).sse[0]!.message!.usage = { input_tokens: 50_000, output_tokens: 1 };
      return reply;
    };
    let stopping: Promise<void> | undefined;
    // SPEC §26: each call holds its worst case first (Claude Code asks for 32,000 tokens: about $0.50), so the budget is $1.
    const limitUsd = 1;
    const claude: { current?: Claude } = {};
    claude.current = await startClaude(s, script, cleanups, { limitUsd, onBudget: () => void (stopping = claude.current?.session.stop()) });
    const turn = claude.current.session.prompt('Loop forever').catch((err: unknown) => err);
    await turn;
    await stopping;
    await claude.current.exited;
    const priced = wholeCalls(claude.current.calls).filter((c) => c.outcome?.costUsd !== undefined);
    const costs = priced.map((c) => c.outcome!.costUsd!);
    const spent = costs.reduce((a, b) => a + b, 0);
    expect(priced.length).toBeGreaterThanOrEqual(2);
    expect(claude.current.proxy.refused()).toBeGreaterThanOrEqual(1);
    expect(spent).toBeLessThanOrEqual(limitUsd + Math.max(...costs));
    // The ledger's rows are the proxy's: each names its model and tokens.
    expect(priced.every((c) => c.outcome!.usage.inputTokens > 0 && c.info.model !== 'unknown')).toBe(true);
    expect(n).toBeLessThan(40);
    // `stop` left no process of the agent's.
    expect(liveProcesses().filter((p) => p.role === 'agent')).toEqual([]);
  }, 180_000);

  it.skipIf(!available)('Gemini CLI: its write_file goes through Deepdesk after the person allowed once; the proxy meters each call', async () => {
    const s = scene();
    cleanups.push(...s.cleanup);
    process.env.HOME = s.home;
    const target = join(s.folder, 'hello.txt');
    // Gemini CLI cannot create a file through the client's fs (acp-agents-offline.md): it overwrites one.
    writeFileSync(target, 'old\n');
    const script = (request: GeminiRequest): GeminiStep => {
      const tools = (request.body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
      const answered = JSON.stringify(request.body.contents).includes('functionResponse');
      if (!tools.includes('write_file')) return { parts: [{ text: JSON.stringify({ reasoning: 'simple', model_choice: 'flash' }) }] };
      if (!answered) return { parts: [{ functionCall: { name: 'write_file', args: { file_path: target, content: 'hi from gemini\n' } } }] };
      return { parts: [{ text: 'Wrote it.' }] };
    };
    const model = await startScriptedGeminiServer(Array.from({ length: 50 }, () => script));
    cleanups.push(() => model.close());
    const { observer, calls } = meteredCalls();
    const proxy = await startMeteringProxy({ upstream: model.url.replace(/\/v1beta$/, ''), upstreamHeaders: { 'x-goog-api-key': 'the-persons-key' }, agent: { name: 'gemini', provider: 'google' }, observer });
    cleanups.push(() => proxy.close());
    const proc = await startAgentProcess({
      command: process.execPath,
      args: [join(REPO, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'), '--acp'],
      env: { GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${MODEL_PORT}`, GEMINI_API_KEY: 'placeholder', GEMINI_CLI_NO_RELAUNCH: 'true' },
      folder: s.folder,
      dataDir: s.dataDir,
      privateHome: join(s.dataDir, 'agents', 'homes', 'gemini'),
      forwards: [{ port: MODEL_PORT, socket: proxy.socket }],
      droppedEnv: [],
    });
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: s.folder, dataDir: s.dataDir }));
    const backend = new LocalShellBackend({ rootDir: s.folder, ...(sandbox ? { sandbox } : {}) });
    const asked: AgentApprovalRequest[] = [];
    const session = new AcpClientSession(proc, {
      agent: 'Gemini CLI',
      folder: s.folder,
      backend,
      execute: (command, options) => backend.execute(command, options),
      rules: () => DEFAULT_RULES,
      ask: async (request) => {
        asked.push(request);
        return true;
      },
    });
    cleanups.push(() => session.stop());
    await session.initialize(120_000);
    await session.newSession();
    const turn = await session.prompt('Write hello.txt');
    expect(turn.stopReason).toBe('end_turn');
    expect(readFileSync(target, 'utf8')).toBe('hi from gemini\n');
    expect(asked[0]).toMatchObject({ agent: 'Gemini CLI', operation: { tool: 'edit_file', paths: ['/hello.txt'] } });
    expect(said(turn.updates)).toContain('Wrote it.');
    expect(wholeCalls(calls).length).toBeGreaterThanOrEqual(2);
    expect(model.requests.every((r) => r.apiKey === 'the-persons-key')).toBe(true);
  }, 240_000);
});
