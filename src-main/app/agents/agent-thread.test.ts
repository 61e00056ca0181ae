// An external agent as a thread's agent (SPEC §22), from the catalog: Claude Code's adapter
// (the repository's pinned devDependency as the installation) in the sandbox through the
// metering proxy, each of its calls one ledger row naming it in the real SQLite ledger and one
// span on a real OTLP receiver (the one metering point), the person's key upstream and none in
// its environment; a person-added command (the scripted ACP agent) contained the same; `stop`
// leaves no process.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../../core/backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from '../../core/sandbox';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { DEFAULT_RULES } from '../../core/agent/permissions/rules';
import { UsageLedger } from '../../core/telemetry/usage-ledger';
import { combineTelemetry } from '../../core/telemetry/observer';
import { otelTelemetry } from '../../core/telemetry/otel';
import { startOtlpReceiver } from '../../core/telemetry/otlp-receiver.test-support';
import { liveProcesses } from '../../core/process/spawn';
import { anthropicMessageStream, startScriptedAnthropicServer, type AnthropicReply } from '../../core/models/testing/scripted-anthropic-server';
import type { AgentApprovalRequest, SessionUpdate } from '../../core/acp-client/acp-client';
import { startScriptedResponsesServer, type ResponsesStep } from '../../core/models/testing/scripted-responses-server';
import { knownAgent } from './vendors/catalog';
import { recorderFor } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { lineAuthors } from '../../core/checkpoints/line-authors';
import { startAgentThread } from './agent-thread';
import { budgetOf } from '../../core/spend/spend-tree.test-support';
import type { PriceOverride } from '../../core/models/model-info';

const REPO = join(__dirname, '..', '..', '..');

function said(updates: SessionUpdate[]): string {
  return updates.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');
}

describe('an external agent for a thread', async () => {
  const available = (await detectSandbox()).available;
  const cleanups: Array<() => Promise<void> | void> = [];
  const realHome = process.env.HOME;
  afterEach(async () => {
    process.env.HOME = realHome;
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function scene(): { folder: string; dataDir: string; home: string } {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'agent-thread-')));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const folder = join(root, 'project');
    const dataDir = join(root, 'data');
    const home = join(root, 'home');
    mkdirSync(folder);
    mkdirSync(dataDir);
    mkdirSync(join(home, '.claude'), { recursive: true });
    // The person's own allow-rules for Claude Code do not pre-approve it under Deepdesk.
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Write', 'Bash(*)'] } }));
    process.env.HOME = home;
    return { folder, dataDir, home };
  }

  it.skipIf(!available)('Claude Code from the catalog: a turn, its write after allow-once; each of its calls one ledger row and one span naming it; its step names the model that answered, not `default`', async () => {
    const { folder, dataDir, home } = scene();
    const store = new CheckpointStore(join(dataDir, 'checkpoints.db'));
    cleanups.push(() => store.close());
    const target = join(folder, 'notes.txt');
    const script = (body: Record<string, unknown>): AnthropicReply => {
      const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
      const write = tools.find((t) => /(^|__)Write$/.test(t.name));
      if (!write) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      if (!JSON.stringify(body.messages).includes('tool_result')) {
        return anthropicMessageStream([{ tool: write.name, id: 'toolu_01', json: [JSON.stringify({ file_path: target, content: 'from the catalog\n' })] }], 'tool_use');
      }
      return anthropicMessageStream([{ text: 'Done.' }], 'end_turn');
    };
    const model = await startScriptedAnthropicServer(Array.from({ length: 30 }, () => script));
    cleanups.push(() => model.close());
    const db = new Database(join(dataDir, 'ledger.db'));
    cleanups.push(() => void db.close());
    const ledger = new UsageLedger(db);
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const otel = otelTelemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, serviceVersion: 'test' })!;
    cleanups.push(() => otel.shutdown?.());
    const telemetry = combineTelemetry([ledger.telemetry(), otel])!;
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: folder, dataDir }));
    const backend = new LocalShellBackend({ rootDir: folder, ...(sandbox ? { sandbox } : {}) });
    const asked: AgentApprovalRequest[] = [];
    const updates: SessionUpdate[] = [];
    const thread = await startAgentThread({
      agent: { known: knownAgent('claude-code')!, installRoot: REPO },
      threadId: 'thread-1',
      folder,
      dataDir,
      backend,
      execute: (c, o) => backend.execute(c, o),
      rules: () => DEFAULT_RULES,
      ask: async (r) => {
        asked.push(r);
        return true;
      },
      telemetry: async () => telemetry,
      personKey: 'sk-ant-the-persons-key',
      upstream: model.url.replace(/\/v1$/, ''),
      checkpoints: recorderFor(store, folder),
      onUpdate: (update) => updates.push(update),
    });
    cleanups.push(() => thread.stop());
    expect(thread.session.initializeResponse?.agentCapabilities?.loadSession).toBe(true);
    const turn = await thread.prompt('Write notes.txt');
    expect(turn.stopReason).toBe('end_turn');
    expect(readFileSync(target, 'utf8')).toBe('from the catalog\n');
    // Its session says `default` (an alias); the model that answered its calls is what wrote the line.
    expect(turn.checkpoint).toMatchObject({ tool: 'agent:claude-code', model: 'claude-sonnet-4-5-20250929' });
    expect(lineAuthors(store, folder, 'notes.txt', readFileSync(target))).toEqual([{ line: 1, kind: 'agent', thread: 'thread-1', model: 'claude-sonnet-4-5-20250929', agent: 'claude-code' }]);
    // It never says how full its context is: its working calls' prompts do, for the context meter (the scripted answer: 12 + 100 + 50 in, then its output).
    const told = updates.filter((u) => u.sessionUpdate === 'usage_update');
    expect(told.length).toBeGreaterThan(0);
    expect(told.at(-1)).toMatchObject({ size: 200_000 });
    expect((told.at(-1) as { used: number }).used).toBeGreaterThanOrEqual(162);
    expect(asked.map((a) => a.agent)).toContain('Claude Code');
    expect(said(turn.updates)).toContain('Done.');
    ledger.flush();
    const rows = db.prepare('SELECT provider, purpose, model, input_tokens, cost_usd, thread_id FROM model_calls').all() as Array<{ provider: string; purpose: string; model: string; input_tokens: number; cost_usd: number | null; thread_id: string }>;
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.provider === 'claude-code' && r.purpose === 'other-agent' && r.thread_id === 'thread-1' && r.input_tokens > 0)).toBe(true);
    expect(rows.some((r) => r.cost_usd !== null && r.cost_usd > 0)).toBe(true);
    // The same calls as spans: one `chat` span a row, naming the agent, under its turn's `invoke_agent claude-code`.
    await otel.flush?.();
    const spans = receiver.spans();
    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(chats).toHaveLength(rows.length);
    const turns = spans.filter((span) => span.name === 'invoke_agent claude-code' && span.attributes['gen_ai.conversation.id'] === 'thread-1');
    for (const chat of chats) {
      expect(chat.attributes).toMatchObject({ 'gen_ai.agent.name': 'claude-code', 'gen_ai.provider.name': 'anthropic', 'deepdesk.purpose': 'other-agent' });
      expect(turns.map((t) => t.spanId)).toContain(chat.parentSpanId);
    }
    expect(chats.map((c) => c.attributes['gen_ai.usage.input_tokens']).sort()).toEqual(rows.map((r) => r.input_tokens).sort());
    expect(model.headers.every((h) => h['x-api-key'] === 'sk-ant-the-persons-key')).toBe(true);
    // Its private copy of the login folder: the person's allow-rules left out; the person's own file untouched.
    const copied = JSON.parse(readFileSync(join(dataDir, 'agents', 'homes', 'claude-code', '.claude', 'settings.json'), 'utf8')) as { permissions: Record<string, unknown> };
    expect(copied.permissions.allow).toBeUndefined();
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toContain('Bash(*)');
    await thread.stop();
    await thread.exited;
    expect(liveProcesses().filter((p) => p.role === 'agent')).toEqual([]);
  }, 240_000);

  it.skipIf(!available)('Claude Code without the person\'s key uses its own sign-in: its token goes upstream, no placeholder key shadows it', async () => {
    const { folder, dataDir, home } = scene();
    const token = 'sk-ant-oat01-the-persons-subscription';
    writeFileSync(
      join(home, '.claude', '.credentials.json'),
      JSON.stringify({ claudeAiOauth: { accessToken: token, refreshToken: 'sk-ant-ort01-refresh', expiresAt: Date.now() + 86_400_000, scopes: ['user:inference', 'user:profile'], subscriptionType: 'max' } }),
    );
    const model = await startScriptedAnthropicServer(Array.from({ length: 30 }, () => anthropicMessageStream([{ text: 'Signed in.' }], 'end_turn')));
    cleanups.push(() => model.close());
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: folder, dataDir }));
    const backend = new LocalShellBackend({ rootDir: folder, ...(sandbox ? { sandbox } : {}) });
    const thread = await startAgentThread({
      agent: { known: knownAgent('claude-code')!, installRoot: REPO },
      threadId: 'thread-own',
      folder,
      dataDir,
      backend,
      execute: (c, o) => backend.execute(c, o),
      rules: () => DEFAULT_RULES,
      ask: async () => true,
      upstream: model.url.replace(/\/v1$/, ''),
    });
    cleanups.push(() => thread.stop());
    const turn = await thread.prompt('Say hello');
    expect(turn.stopReason).toBe('end_turn');
    expect(said(turn.updates)).toContain('Signed in.');
    expect(model.headers.length).toBeGreaterThan(0);
    expect(model.headers.every((h) => h['authorization'] === `Bearer ${token}` && h['x-api-key'] === undefined)).toBe(true);
    await thread.stop();
  }, 240_000);

  it.skipIf(!available)('a person-added command runs contained the same: no Deepdesk credential in its environment', async () => {
    const { folder, dataDir } = scene();
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: folder, dataDir }));
    const backend = new LocalShellBackend({ rootDir: folder, ...(sandbox ? { sandbox } : {}) });
    const saved = { key: process.env.ANTHROPIC_API_KEY, sandbox: process.env.IS_SANDBOX };
    process.env.ANTHROPIC_API_KEY = 'sk-ant-deepdesks-own';
    // What switches Claude Code's adapter out of asking is dropped for any command too (it may start that adapter).
    process.env.IS_SANDBOX = 'deepdesk-test-flag';
    cleanups.push(() => {
      if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved.key;
      if (saved.sandbox === undefined) delete process.env.IS_SANDBOX;
      else process.env.IS_SANDBOX = saved.sandbox;
    });
    const thread = await startAgentThread({
      agent: { added: { name: 'scripted', label: 'Scripted', command: process.execPath, args: [join(REPO, 'src-main', 'core', 'acp-client', 'testing', 'scripted-acp-agent.mjs')], env: {} } },
      threadId: 'thread-2',
      folder,
      dataDir,
      backend,
      execute: (c, o) => backend.execute(c, o),
      rules: () => DEFAULT_RULES,
      ask: async () => true,
    });
    cleanups.push(() => thread.stop());
    const turn = await thread.prompt('own-run env ;; own-read /proc/self/environ');
    const text = said(turn.updates);
    expect(text).toContain('own-run exit 0');
    expect(text).not.toContain('sk-ant-deepdesks-own');
    expect(text).not.toContain('deepdesk-test-flag');
    await thread.stop();
    expect(liveProcesses().filter((p) => p.role === 'agent')).toEqual([]);
  }, 120_000);

  it.skipIf(!available)('each turn\'s step carries the model the agent says its session uses (SPEC §24), so who wrote a line names it', async () => {
    const { folder, dataDir } = scene();
    const store = new CheckpointStore(join(dataDir, 'checkpoints.db'));
    cleanups.push(() => store.close());
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: folder, dataDir }));
    const backend = new LocalShellBackend({ rootDir: folder, ...(sandbox ? { sandbox } : {}) });
    const thread = await startAgentThread({
      agent: { added: { name: 'scripted', label: 'Scripted', command: process.execPath, args: [join(REPO, 'src-main', 'core', 'acp-client', 'testing', 'scripted-acp-agent.mjs')], env: { SCRIPTED_ACP_MODEL: 'scripted-model-a' } } },
      threadId: 'thread-model',
      folder,
      dataDir,
      backend,
      checkpoints: recorderFor(store, folder),
      execute: (c, o) => backend.execute(c, o),
      rules: () => DEFAULT_RULES,
      ask: async () => true,
    });
    cleanups.push(() => thread.stop());
    const first = await thread.prompt(`write ${join(folder, 'a.txt')} from-a`);
    expect(first.checkpoint).toMatchObject({ threadId: 'thread-model', tool: 'agent:scripted', model: 'scripted-model-a' });
    // The agent changes its model in a turn (config_option_update): that turn's step names the new one.
    const second = await thread.prompt(`set-model scripted-model-b ;; write ${join(folder, 'b.txt')} from-b`);
    expect(second.checkpoint).toMatchObject({ model: 'scripted-model-b' });
    expect(lineAuthors(store, folder, 'b.txt', readFileSync(join(folder, 'b.txt')))).toEqual([{ line: 1, kind: 'agent', thread: 'thread-model', model: 'scripted-model-b', agent: 'scripted' }]);
    expect(lineAuthors(store, folder, 'a.txt', readFileSync(join(folder, 'a.txt')))[0]).toMatchObject({ model: 'scripted-model-a' });
  }, 120_000);

  it.skipIf(!available)('a thread\'s agent is reaped whole when the thread lets it go (closed, deleted, its window gone): a child it left running goes too', async () => {
    const { folder, dataDir } = scene();
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: folder, dataDir }));
    const backend = new LocalShellBackend({ rootDir: folder, ...(sandbox ? { sandbox } : {}) });
    const thread = await startAgentThread({
      agent: { added: { name: 'scripted', label: 'Scripted', command: process.execPath, args: [join(REPO, 'src-main', 'core', 'acp-client', 'testing', 'scripted-acp-agent.mjs')], env: {} } },
      threadId: 'thread-reaped',
      folder,
      dataDir,
      backend,
      execute: (c, o) => backend.execute(c, o),
      rules: () => DEFAULT_RULES,
      ask: async () => true,
    });
    cleanups.push(() => thread.stop());
    // Told apart from any other sleep on the machine by its argument (its pid inside the sandbox is another).
    const seconds = `${300 + Math.floor(Math.random() * 1e6) / 1e7}`;
    const sleepers = (): string[] =>
      readdirSync('/proc').filter((pid) => {
        try {
          return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0`;
        } catch {
          return false;
        }
      });
    const turn = await thread.prompt(`own-run sleep ${seconds} >/dev/null 2>&1 & echo left`);
    expect(said(turn.updates)).toContain('own-run exit 0 left');
    expect(sleepers()).toHaveLength(1);
    // What the window's threads.delete and a folder's close call (ExternalAgentRunner.close).
    await thread.stop();
    await thread.exited;
    expect(liveProcesses().filter((p) => p.role === 'agent')).toEqual([]);
    // The kernel ends the rest of the sandbox's pid namespace with it; polled, not timed.
    for (let i = 0; i < 600 && sleepers().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sleepers()).toEqual([]);
  }, 120_000);

  it.skipIf(!available)('Codex from the catalog: its command asks, naming it; run in its own process, held by the sandbox; metered through its provider configuration', async () => {
    const { folder, dataDir } = scene();
    const outside = join(dirname(folder), 'outside-marker.txt');
    writeFileSync(outside, 'original');
    const script = (body: Record<string, unknown>): ResponsesStep => {
      if (JSON.stringify(body.input ?? []).includes('function_call_output')) return { text: 'Ran it.' };
      return { functionCall: { name: 'exec_command', callId: 'call_1', arguments: JSON.stringify({ cmd: `echo codex > made-by-codex.txt; echo pwned > ${outside}` }) } };
    };
    const model = await startScriptedResponsesServer(Array.from({ length: 30 }, () => script));
    cleanups.push(() => model.close());
    const db = new Database(join(dataDir, 'ledger.db'));
    cleanups.push(() => void db.close());
    const ledger = new UsageLedger(db);
    const store = new CheckpointStore(join(dataDir, 'checkpoints.db'));
    cleanups.push(() => store.close());
    const recorder = recorderFor(store, folder);
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: folder, dataDir }));
    const backend = new LocalShellBackend({ rootDir: folder, ...(sandbox ? { sandbox } : {}) });
    const asked: AgentApprovalRequest[] = [];
    const thread = await startAgentThread({
      agent: { known: knownAgent('codex')!, installRoot: REPO },
      threadId: 'thread-3',
      folder,
      dataDir,
      backend,
      checkpoints: recorder,
      execute: (c, o) => backend.execute(c, o),
      rules: () => DEFAULT_RULES,
      ask: async (r) => {
        asked.push(r);
        return true;
      },
      telemetry: async () => ledger.telemetry(),
      personKey: 'sk-the-persons-openai-key',
      upstream: model.url.replace(/\/v1$/, ''),
    });
    cleanups.push(() => thread.stop());
    const turn = await thread.prompt('Make a file');
    expect(said(turn.updates)).toContain('Ran it.');
    expect(asked[0]).toMatchObject({ agent: 'Codex', operation: { tool: 'execute', command: `echo codex > made-by-codex.txt; echo pwned > ${outside}` } });
    // Codex ran it in its own process after the allow-once: the folder changed, outside it nothing did.
    expect(readFileSync(join(folder, 'made-by-codex.txt'), 'utf8')).toBe('codex\n');
    expect(readFileSync(outside, 'utf8')).toBe('original');
    // The turn's change, made in Codex's own process, is checkpointed and attributed to the thread.
    expect(turn.checkpoint).toMatchObject({ threadId: 'thread-3', kind: 'agent', tool: 'agent:codex', messageLine: 'Make a file' });
    expect(store.entries(turn.checkpoint!).map((c) => c.path)).toEqual(['made-by-codex.txt']);
    ledger.flush();
    const rows = db.prepare('SELECT provider FROM model_calls').all() as Array<{ provider: string }>;
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.every((r) => r.provider === 'codex')).toBe(true);
    expect(model.headers.every((h) => h.authorization === 'Bearer sk-the-persons-openai-key')).toBe(true);
  }, 240_000);

  it.skipIf(!available)('in a budget, a model with no price is refused saying which and where to set it; a price set in Settings › Prices lets it through', async () => {
    const { folder, dataDir, home } = scene();
    // The person chose a model the price table lacks.
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ model: 'claude-unlisted-9' }));
    const model = await startScriptedAnthropicServer(Array.from({ length: 40 }, () => anthropicMessageStream([{ text: 'Priced.' }], 'end_turn')));
    cleanups.push(() => model.close());
    const backend = new LocalShellBackend({ rootDir: folder });
    const prices: Record<string, PriceOverride> = {};
    const start = () =>
      startAgentThread({
        agent: { known: knownAgent('claude-code')!, installRoot: REPO },
        threadId: 'thread-5',
        folder,
        dataDir,
        backend,
        execute: (c, o) => backend.execute(c, o),
        rules: () => DEFAULT_RULES,
        ask: async () => false,
        personKey: 'sk-ant-the-persons-key',
        upstream: model.url.replace(/\/v1$/, ''),
        budget: budgetOf({ maxCostUsd: 5 }, 0, "the candidates' set's budget"),
        prices: () => prices,
      });
    const refused = await start();
    cleanups.push(() => refused.stop());
    await refused.prompt('hi').catch(() => undefined);
    expect(refused.budgetReached()).toBe(true);
    expect(refused.budgetRefusal()).toMatch(/the price of anthropic:claude-unlisted-9 is unknown.*set its price in Settings › Prices/);
    await refused.stop();
    prices['anthropic:claude-unlisted-9'] = { input: 1, output: 2 };
    const priced = await start();
    cleanups.push(() => priced.stop());
    const turn = await priced.prompt('hi');
    expect(said(turn.updates)).toContain('Priced.');
    expect(priced.budgetReached()).toBe(false);
    // The refused call never went upstream; once priced, it did.
    expect(model.bodies.filter((b) => b.model === 'claude-unlisted-9').length).toBeGreaterThan(0);
  }, 240_000);

  it.skipIf(!available)('Claude Code continues its session after a restart (session/load from its private home)', async () => {
    const { folder, dataDir } = scene();
    const script = (body: Record<string, unknown>): AnthropicReply => {
      const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
      if (tools.length === 0) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      return anthropicMessageStream([{ text: JSON.stringify(body.messages).includes('remember the word plum') ? 'I remember plum.' : 'Noted.' }], 'end_turn');
    };
    const model = await startScriptedAnthropicServer(Array.from({ length: 40 }, () => script));
    cleanups.push(() => model.close());
    const backend = new LocalShellBackend({ rootDir: folder });
    const start = (continueSessionId?: string) =>
      startAgentThread({
        agent: { known: knownAgent('claude-code')!, installRoot: REPO },
        threadId: 'thread-4',
        folder,
        dataDir,
        backend,
        execute: (c, o) => backend.execute(c, o),
        rules: () => DEFAULT_RULES,
        ask: async () => false,
        personKey: 'sk-ant-the-persons-key',
        upstream: model.url.replace(/\/v1$/, ''),
        ...(continueSessionId ? { continueSessionId } : {}),
      });
    const first = await start();
    cleanups.push(() => first.stop());
    await first.prompt('remember the word plum');
    const id = first.sessionId;
    await first.stop();
    const second = await start(id);
    cleanups.push(() => second.stop());
    expect(second.continuation).toBe('continued');
    expect(second.sessionId).toBe(id);
    const turn = await second.prompt('what word?');
    expect(said(turn.updates)).toContain('I remember plum.');
  }, 240_000);
});
