// Issue 18: the MCP client's own cost. Per call: the hub's callTool against a plain SDK
// client on the same server (server-everything over stdio, unsandboxed, echo). The first
// model request with many MCP tools: its tokens with every schema sent and with them
// deferred behind tool_search.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createAgentDefinition } from '../../src-main/core/agent/create-agent';
import type { ModelCallRequest } from '../../src-main/core/agent/run-context';
import { runAgent } from '../../src-main/core/agent/loop';
import { countRequestTokens } from '../../src-main/core/agent/token-count';
import { newThreadState } from '../../src-main/core/agent/types';
import { createDefaultMounts } from '../../src-main/core/backends/mounts/mounts';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import { McpHub } from '../../src-main/core/extensions/mcp/hub';
import { EVERYTHING, stdioEntry, TEST_SERVER } from '../../src-main/core/extensions/mcp/hub.test-support';
import type { ChatModel, ModelEvent, ModelRequest } from '../../src-main/core/models/types';
import { ReadGuard } from '../../src-main/core/tools/read-guard';
import { errorText, formatMs, median } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report, type Section } from './report';

const CALLS = 300;
const OVERHEAD_TARGET_MS = 1;
const MANY_TOOLS = 300;
const CONTEXT_WINDOW = 200_000;
const never = new AbortController().signal;

/** Median per-call milliseconds of `call`, over CALLS calls after a warm-up, in rounds. */
async function perCall(call: () => Promise<unknown>, rounds: number): Promise<number> {
  for (let i = 0; i < 20; i++) await call();
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) await call();
    perRound.push((performance.now() - start) / CALLS);
  }
  return median(perRound);
}

function tempFolder(): { folder: string; dataDir: string; cleanup(): void } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-mcp-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-mcp-data-'));
  return { folder, dataDir, cleanup: () => [folder, dataDir].forEach((d) => fs.rmSync(d, { recursive: true, force: true })) };
}

async function benchCallOverhead(section: Section, options: BenchOptions): Promise<void> {
  const dirs = tempFolder();
  const rounds = Math.max(1, Math.min(options.runs, 5));
  const hub = new McpHub({ folder: dirs.folder, dataDir: dirs.dataDir, env: process.env, clientInfo: { name: 'deepdesk-bench', version: '0' } });
  const direct = new Client({ name: 'bench-direct', version: '0' }, { capabilities: {} });
  try {
    await hub.configure([stdioEntry('every', [EVERYTHING, 'stdio'])], []);
    const state = hub.states()[0]!;
    if (state.status !== 'connected') throw new Error(`server-everything did not connect: ${state.error ?? state.status}`);
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'pipe' }));
    await direct.listTools();
    progress(`MCP: ${CALLS} echo calls × ${rounds}, hub and direct`);
    // Interleaved, so a change of machine load falls on both.
    const hubTimes: number[] = [];
    const directTimes: number[] = [];
    for (let r = 0; r < rounds; r++) {
      hubTimes.push(await perCall(() => hub.callTool('mcp__every__echo', { message: 'bench' }, never), 1));
      directTimes.push(await perCall(() => direct.callTool({ name: 'echo', arguments: { message: 'bench' } }), 1));
    }
    const ours = median(hubTimes);
    const floor = median(directTimes);
    const overhead = ours - floor;
    section.rows.push({
      name: 'MCP tool call, server-everything echo over stdio (hub vs plain SDK client)',
      ours: formatMs(ours),
      floor: formatMs(floor),
      ratio: `+${formatMs(overhead)}`,
      target: `< ${OVERHEAD_TARGET_MS} ms over direct`,
      result: verdict(overhead < OVERHEAD_TARGET_MS),
    });
  } finally {
    await direct.close().catch(() => undefined);
    await hub.close();
    dirs.cleanup();
  }
}

/** Answers at once and keeps the first request. */
class RecordingModel implements ChatModel {
  readonly id = 'openai-compatible:bench-recorder';
  readonly provider = 'openai-compatible' as const;
  first: ModelRequest | undefined;
  constructor(readonly contextWindow: number) {}
  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    this.first ??= request;
    yield { type: 'text-delta', text: 'ok' };
    yield { type: 'finish', stopReason: 'stop', usage: { inputTokens: 0, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } };
  }
}

async function firstRequestTokens(hub: McpHub, folder: string, dataDir: string, contextWindow: number): Promise<{ tokens: number; tools: number }> {
  const model = new RecordingModel(contextWindow);
  const db = openDatabase(path.join(dataDir, `bench-${contextWindow}.db`));
  try {
    const mounts = createDefaultMounts({ folder, db, execute: false });
    const def = createAgentDefinition({ model, backend: mounts.backend, rules: () => [], broker: { decide: async () => ({ type: 'approve' }) }, mcp: hub, contextWindow });
    await runAgent(def, newThreadState('bench'), { role: 'user', content: 'hello' }, { emit: () => undefined, persist: async () => undefined, guard: new ReadGuard() });
    const request = model.first!;
    const counted: ModelCallRequest = { system: request.system, messages: request.messages, tools: request.tools };
    return { tokens: countRequestTokens(counted), tools: request.tools.length };
  } finally {
    db.close();
  }
}

async function benchDeferral(section: Section): Promise<void> {
  const dirs = tempFolder();
  const hub = new McpHub({ folder: dirs.folder, dataDir: dirs.dataDir, env: process.env, clientInfo: { name: 'deepdesk-bench', version: '0' } });
  try {
    await hub.configure([stdioEntry('inv', [TEST_SERVER], { env: { MANY_TOOLS: String(MANY_TOOLS) } })], []);
    const mcpTools = hub.tools().length;
    // A window so large that 10% holds every schema: what the request would be without deferral.
    const all = await firstRequestTokens(hub, dirs.folder, dirs.dataDir, 100_000_000);
    const deferred = await firstRequestTokens(hub, dirs.folder, dirs.dataDir, CONTEXT_WINDOW);
    section.rows.push({ name: `first request, ${mcpTools} MCP tools, every schema sent (${all.tools} tools)`, ours: `${all.tokens} tokens` });
    section.rows.push({
      name: `first request, same tools behind tool_search (${deferred.tools} tools sent; window ${CONTEXT_WINDOW / 1000}k)`,
      ours: `${deferred.tokens} tokens`,
      ratio: `${((deferred.tokens / all.tokens) * 100).toFixed(1)}% of all`,
      target: `< 10% of the window (${CONTEXT_WINDOW / 10} tokens)`,
      result: verdict(deferred.tokens < CONTEXT_WINDOW / 10),
    });
  } finally {
    await hub.close();
    dirs.cleanup();
  }
}

export async function benchMcpClient(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 18 · MCP client');
  await benchCallOverhead(section, options).catch((err: unknown) => section.rows.push({ name: 'MCP tool call overhead', ours: `error: ${errorText(err)}` }));
  await benchDeferral(section).catch((err: unknown) => section.rows.push({ name: 'first request tokens with tool_search', ours: `error: ${errorText(err)}` }));
  section.notes.push('per call: median over rounds of 300 sequential echo calls after 20 warm-up calls; hub = McpHub.callTool (timeout, cancellation signal, result mapping); floor = Client.callTool on its own StdioClientTransport to the same server');
  section.notes.push(`tokens: the whole first request (system prompt, built-in tools, MCP tools or tool_search, one message) counted with o200k_base; the test server's own tools and ${MANY_TOOLS} generated ones`);
}
