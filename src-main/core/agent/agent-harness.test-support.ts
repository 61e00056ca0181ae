// Drives the real agent (real provider code, real backends) against the scripted
// OpenAI-compatible server, collecting events. Shared by the agent tests.

import { budgetOf } from '../spend/spend-tree.test-support';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MountOptions } from '../backends/mounts/mounts';
import type { CheckpointRecorder } from '../checkpoints/recorder';
import type { McpHubApi } from '../extensions/mcp/types';
import type { MediaKind } from '../media/kinds';
import { transcriptWriter } from '../extensions/hooks/transcript';
import type { HookEntry } from '../extensions/hooks/types';
import { createChatModel } from '../models/create-model';
import { ZERO_USAGE, type ChatModel } from '../models/types';
import type { PriceOverride } from '../models/model-info';
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from '../models/testing/scripted-server';
import { ReadGuard } from '../tools/read-guard';
import type { Sandbox } from '../sandbox/types';
import { createTestWorkspace, type TestWorkspace } from '../tools/test-workspace.test-support';
import { createAgentDefinition } from './create-agent';
import type { FanOutLimits } from './fan-out';
import { AGENT_CONFIG } from './permissions/agent-config.test-support';
import { runAgent, type RunOptions, type RunResult } from './loop';
import type { Middleware } from './middleware';
import type { ApprovalBroker } from './middleware/approval';
import type { SubagentSpec } from './middleware/subagents';
import type { ApprovalMode } from './permissions/modes';
import type { ReviewSetup } from './review/answerer';
import type { PermissionRule } from './permissions/rules';
import { newThreadState, type AgentEvent, type ApprovalDecision, type ApprovalRequest, type ThreadState } from './types';

export const ALLOW_ALL: PermissionRule[] = [{ tools: ['*'], decision: 'allow' }];

export interface HarnessOptions {
  script?: ScriptStep[];
  rules?: PermissionRule[];
  decisions?: ApprovalDecision[];
  contextWindow?: number;
  evictChars?: number;
  subagents?: SubagentSpec[];
  /** The model name sent to the scripted server (default scripted-model). */
  modelName?: string;
  /** Another model than the scripted server's (e.g. one on a scripted Anthropic server). */
  model?: ChatModel;
  /** The model of a subagent whose declaration names one. */
  resolveModel?: (spec: string) => ChatModel;
  /** The media kinds set for the model in Settings (replaces openai-compatible's images-only row). */
  mediaInput?: readonly MediaKind[];
  /** Added after the standard middleware (e.g. a mode that refuses writes). */
  extraMiddleware?: Middleware[];
  /** The skills mounted read-only at /skills/ (read on every call). */
  skills?: MountOptions['skills'];
  /** Mounts added as the person's (e.g. a read-only folder). */
  extraMounts?: MountOptions['extraMounts'];
  maxRepeatedCalls?: number;
  /** The thread's fan-out caps (SPEC §26). */
  fanOut?: FanOutLimits;
  /** Called instead of the scripted decisions when set. */
  decide?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  takeQueued?: RunOptions['takeQueued'];
  /** Records checkpoints of the workspace folder. */
  checkpoints?: (folder: string) => CheckpointRecorder;
  mode?: ApprovalMode;
  sandboxAvailable?: boolean;
  /** MCP servers whose tools the agent gets. */
  mcp?: McpHubApi;
  /** Hooks run in the workspace folder; `hookEnv`: the app environment they are scrubbed from. */
  hooks?: () => readonly HookEntry[];
  hookEnv?: NodeJS.ProcessEnv;
  /** Prices set per 'provider:model' (as in Settings). */
  prices?: Record<string, PriceOverride>;
  /**
   * A reviewer (SPEC §23) on its own scripted server, without retries of its model's own; or a
   * model in this process answering each review prompt (`decide`), through the run's real Answerer.
   */
  reviewer?: { server: ScriptedServer; timeoutSeconds?: number } | { decide(prompt: string): 'allow' | 'deny' };
  /** The project folder and its commands' real OS sandbox (made by the caller; the folder is removed with the harness). */
  sandbox?: { folder: string; sandbox: Sandbox };
}

export interface Harness {
  server: ScriptedServer;
  ws: TestWorkspace;
  state: ThreadState;
  events: AgentEvent[];
  approvals: ApprovalRequest[];
  guard: ReadGuard;
  /** `extra`: more run options (telemetry, a budget, compactOnly…). */
  run(prompt: string | null, signal?: AbortSignal, extra?: Partial<RunOptions>): Promise<RunResult>;
  dispose(): Promise<void>;
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const server = await startScriptedServer(options.script ?? []);
  const ws = createTestWorkspace({ ...(options.sandbox ? options.sandbox : {}), ...(options.skills ? { skills: options.skills } : {}), ...(options.extraMounts ? { extraMounts: options.extraMounts } : {}) });
  const model = options.model ?? createChatModel({
    model: `openai-compatible:${options.modelName ?? 'scripted-model'}`,
    baseUrl: server.url,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    ...(options.mediaInput !== undefined ? { mediaInputOverrides: { [`openai-compatible:${options.modelName ?? 'scripted-model'}`]: options.mediaInput } } : {}),
    ...(options.prices !== undefined ? { priceOverrides: options.prices } : {}),
  });
  const approvals: ApprovalRequest[] = [];
  const decisions = [...(options.decisions ?? [])];
  const broker: ApprovalBroker = {
    async decide(request) {
      approvals.push(request);
      if (options.decide) return options.decide(request);
      return decisions.shift() ?? { type: 'reject', message: 'no decision scripted' };
    },
  };
  const transcripts = options.hooks ? mkdtempSync(join(tmpdir(), 'deepdesk-transcripts-')) : undefined;
  const definition = createAgentDefinition({
    model,
    backend: ws.mounts.backend,
    rules: () => options.rules ?? ALLOW_ALL,
    broker,
    agentConfig: AGENT_CONFIG,
    ...(options.reviewer ? { review: () => reviewSetup(options.reviewer!, options.prices) } : {}),
    ...(options.mode ? { mode: () => options.mode! } : {}),
    ...(options.sandboxAvailable !== undefined ? { sandboxAvailable: () => options.sandboxAvailable! } : {}),
    ...(options.subagents ? { subagents: options.subagents } : {}),
    ...(options.resolveModel ? { resolveModel: options.resolveModel } : {}),
    ...(options.mcp ? { mcp: options.mcp } : {}),
    ...(options.hooks ? { hooks: { hooks: options.hooks, folder: ws.folder, transcripts: transcriptWriter(transcripts!), ...(options.hookEnv ? { env: options.hookEnv } : {}), ...(options.skills ? { skills: options.skills } : {}) } } : {}),
    ...(options.checkpoints ? { checkpoints: options.checkpoints(ws.folder) } : {}),
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    ...(options.evictChars !== undefined ? { evictChars: options.evictChars } : {}),
    ...(options.maxRepeatedCalls !== undefined ? { maxRepeatedCalls: options.maxRepeatedCalls } : {}),
  });
  definition.middleware.push(...(options.extraMiddleware ?? []));
  const state = newThreadState('thread-1');
  const events: AgentEvent[] = [];
  const guard = new ReadGuard();
  return {
    server,
    ws,
    state,
    events,
    approvals,
    guard,
    run: (prompt, signal, extra) =>
      runAgent(definition, state, prompt === null ? null : { role: 'user', content: prompt }, {
        emit: (e) => events.push(e),
        persist: async () => undefined,
        guard,
        ...(signal ? { signal } : {}),
        ...(options.takeQueued ? { takeQueued: options.takeQueued } : {}),
        // The thread's fan-out caps are its budget node's (SPEC §26).
        ...(options.fanOut ? { budget: budgetOf(options.fanOut) } : {}),
        ...extra,
      }),
    async dispose() {
      await server.close();
      ws.dispose();
      if (transcripts) rmSync(transcripts, { recursive: true, force: true });
    },
  };
}

function reviewSetup(reviewer: NonNullable<HarnessOptions['reviewer']>, prices: HarnessOptions['prices']): ReviewSetup {
  if ('decide' in reviewer) return { model: async () => answeringReviewer(reviewer.decide) };
  const model = createChatModel({ model: 'openai-compatible:reviewer-model', baseUrl: reviewer.server.url, retry: { maxRetries: 0 }, ...(prices !== undefined ? { priceOverrides: prices } : {}) });
  return { model: async () => model, ...(reviewer.timeoutSeconds !== undefined ? { timeoutSeconds: reviewer.timeoutSeconds } : {}) };
}

/** A reviewer's model that answers each review prompt with `decide`'s verdict (a `review_decision` call). */
export function answeringReviewer(decide: (prompt: string) => 'allow' | 'deny'): ChatModel {
  return {
    id: 'openai-compatible:reviewer-model',
    provider: 'openai-compatible',
    contextWindow: 200_000,
    price: null,
    async *stream(request) {
      const prompt = request.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
      const decision = decide(prompt);
      const args = { decision, risk: 'low', authorization: 'high', category: 'other', rationale: decision === 'allow' ? 'allowed' : 'persistence' };
      yield { type: 'tool-call', call: { id: 'review', name: 'review_decision', args, argsText: JSON.stringify(args) } };
      yield { type: 'finish', stopReason: 'tool-calls', usage: ZERO_USAGE };
    },
  };
}

type WireMessage = RecordedRequest['messages'][number];

/** Every tool call in a request has exactly one result and every result has its call. */
export function assertToolPairing(request: RecordedRequest): void {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of request.messages as WireMessage[]) {
    for (const c of (m.tool_calls as Array<{ id: string }> | undefined) ?? []) calls.add(c.id);
    if (m.role === 'tool' && m.tool_call_id) {
      if (!calls.has(m.tool_call_id)) throw new Error(`tool result ${m.tool_call_id} has no preceding call`);
      if (results.has(m.tool_call_id)) throw new Error(`tool result ${m.tool_call_id} appears twice`);
      results.add(m.tool_call_id);
    }
  }
  for (const id of calls) if (!results.has(id)) throw new Error(`tool call ${id} has no result`);
}

export function toolMessages(request: RecordedRequest): WireMessage[] {
  return request.messages.filter((m) => m.role === 'tool');
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => p.text ?? '').join('');
  return '';
}
