// MCP tools in the real agent loop: the scripted model server, real MCP servers (server-
// everything and the test server over stdio), approval, modes, eviction, list_changed,
// tool_search deferral and Stop.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createHarness, textOf, toolMessages, type Harness } from '../../agent/agent-harness.test-support';
import { DEFAULT_RULES } from '../../agent/permissions/rules';
import type { RecordedRequest } from '../../models/testing/scripted-server';
import { createTestHub, EVERYTHING, stdioEntry, TEST_SERVER, type TestHub } from './hub.test-support';

let h: Harness | undefined;
let t: TestHub | undefined;
afterEach(async () => {
  await h?.dispose();
  await t?.dispose();
  h = undefined;
  t = undefined;
});

const toolNames = (request: RecordedRequest): string[] => (request.tools ?? []).map((tool) => tool.function.name);
const results = (request: RecordedRequest): string[] => toolMessages(request).map((m) => textOf(m.content));
const PLAN_ERROR = 'Error: plan mode is read-only; ask the user to switch modes to make changes';

describe('MCP tools in the agent', () => {
  it('are offered with the server\'s schema; a call asks under the default rules and runs once approved', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('every', [EVERYTHING, 'stdio'])], []);
    h = await createHarness({
      rules: DEFAULT_RULES,
      mcp: t.hub,
      decisions: [{ type: 'approve' }],
      script: [{ toolCalls: [{ name: 'mcp__every__echo', args: { message: 'hello mcp' } }] }, { text: 'done' }],
    });
    await h.run('echo something');
    const echo = h.server.requests[0]!.tools!.find((tool) => tool.function.name === 'mcp__every__echo')!;
    expect(echo.function.parameters).toEqual(t.hub.tools().find((tool) => tool.name === 'echo')!.inputSchema);
    expect(h.approvals.map((a) => a.toolName)).toEqual(['mcp__every__echo']);
    expect(h.approvals[0]!.reason).toContain('MCP');
    expect(results(h.server.requests[1]!)).toEqual(['Echo: hello mcp']);
  });

  it('a rule naming the server runs it without asking; an image result reaches the model as an image', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('every', [EVERYTHING, 'stdio'])], []);
    h = await createHarness({
      rules: [{ tools: ['mcp__every__*'], decision: 'allow' }, ...DEFAULT_RULES],
      mcp: t.hub,
      modelName: 'gpt-4o',
      script: [{ toolCalls: [{ name: 'mcp__every__get-tiny-image', args: {} }] }, { text: 'done' }],
    });
    await h.run('show me');
    expect(h.approvals).toEqual([]);
    const wire = JSON.stringify(h.server.requests[1]!.messages);
    expect(wire).toContain('data:image/png;base64,');
  });

  it('plan mode runs only the read-only tool; the other gets the plan-mode error without asking', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('test', [TEST_SERVER])], []);
    h = await createHarness({
      rules: [{ tools: ['mcp__*'], decision: 'allow' }, ...DEFAULT_RULES],
      mode: 'plan',
      mcp: t.hub,
      script: [{ toolCalls: [{ name: 'mcp__test__peek', args: {} }, { name: 'mcp__test__add_tool', args: {} }] }, { text: 'done' }],
    });
    await h.run('look');
    expect(h.approvals).toEqual([]);
    expect(results(h.server.requests[1]!)).toEqual(['peeked', PLAN_ERROR]);
  });

  it('a large MCP result is evicted like any tool\'s', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('test', [TEST_SERVER])], []);
    h = await createHarness({
      mcp: t.hub,
      script: [{ toolCalls: [{ name: 'mcp__test__big', args: { chars: 100_000 }, id: 'call_big' }] }, { text: 'done' }],
    });
    await h.run('big');
    const [result] = results(h.server.requests[1]!);
    expect(result).toContain('/large_tool_results/call_big');
    expect(result!.length).toBeLessThan(5_000);
  });

  it('tools/list_changed during a run: the tool it added is offered at the next model call', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('test', [TEST_SERVER])], []);
    h = await createHarness({
      mcp: t.hub,
      script: [{ toolCalls: [{ name: 'mcp__test__add_tool', args: {} }] }, { toolCalls: [{ name: 'mcp__test__extra', args: {} }] }, { text: 'done' }],
    });
    await h.run('add');
    expect(toolNames(h.server.requests[0]!)).not.toContain('mcp__test__extra');
    expect(toolNames(h.server.requests[1]!)).toContain('mcp__test__extra');
    expect(results(h.server.requests[2]!).at(-1)).toBe('extra ran with {}');
  });

  it('Stop during an MCP call cancels it at the server (notifications/cancelled)', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'mcp-log-'));
    onTestFinished(() => rmSync(logDir, { recursive: true, force: true }));
    const log = join(logDir, 'log');
    writeFileSync(log, '');
    t = createTestHub();
    await t.hub.configure([stdioEntry('test', [TEST_SERVER], { env: { MCP_TEST_LOG: log } })], []);
    h = await createHarness({ mcp: t.hub, script: [{ toolCalls: [{ name: 'mcp__test__slow', args: { ms: 30_000 } }] }, { text: 'never' }] });
    const stop = new AbortController();
    const run = h.run('wait', stop.signal);
    await expect.poll(() => readFileSync(log, 'utf8')).toContain('slow started');
    stop.abort();
    expect((await run).reason).toBe('aborted');
    await expect.poll(() => readFileSync(log, 'utf8')).toContain('cancelled');
  });
});

describe('tool_search deferral', () => {
  const many = (): ReturnType<typeof stdioEntry> => stdioEntry('inv', [TEST_SERVER], { env: { MANY_TOOLS: '40' } });

  it('within 10% of the context window every MCP tool is sent and there is no tool_search', async () => {
    t = createTestHub();
    await t.hub.configure([many()], []);
    h = await createHarness({ mcp: t.hub, contextWindow: 200_000, script: [{ text: 'hi' }] });
    await h.run('hi');
    const names = toolNames(h.server.requests[0]!);
    expect(names.filter((n) => n.startsWith('mcp__'))).toHaveLength(49);
    expect(names).not.toContain('tool_search');
  });

  it('past 10%: no MCP schema is sent, tool_search finds tools, they are sent from the next step and stay; a deferred tool called by name runs', async () => {
    t = createTestHub();
    await t.hub.configure([many()], []);
    h = await createHarness({
      mcp: t.hub,
      contextWindow: 20_000,
      script: [
        { toolCalls: [{ name: 'tool_search', args: { query: 'select:mcp__inv__tool_7,peek' } }] },
        { toolCalls: [{ name: 'tool_search', args: { query: 'inventory sprockets supplier', limit: 2 } }] },
        { toolCalls: [{ name: 'mcp__inv__tool_30', args: { query: 'bolts' } }] },
        { text: 'done' },
      ],
    });
    await h.run('find tools');
    const [first, second, third, fourth] = h.server.requests;
    const firstNames = toolNames(first!);
    expect(firstNames).toContain('tool_search');
    expect(firstNames.filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(String(first!.messages[0]!.content)).toContain('tool_search');

    expect(results(second!)[0]).toContain('## mcp__inv__tool_7');
    expect(results(second!)[0]).toContain('"query"');
    expect(toolNames(second!).filter((n) => n.startsWith('mcp__'))).toEqual(['mcp__inv__peek', 'mcp__inv__tool_7']);

    const found = results(third!).at(-1)!;
    expect(found.match(/^## mcp__inv__tool_\d+$/gm)).toHaveLength(2);
    expect(toolNames(third!).filter((n) => n.startsWith('mcp__'))).toHaveLength(4);

    expect(results(fourth!).at(-1)).toBe('tool_30 ran with {"query":"bolts"}');
    expect(toolNames(fourth!)).toContain('mcp__inv__tool_30');
    expect(h.state.mcpLoadedTools).toContain('mcp__inv__tool_30');
    // The first request is much smaller with deferral.
    expect(JSON.stringify(first!.tools).length).toBeLessThan(JSON.stringify(fourth!.tools).length);
  });
});
