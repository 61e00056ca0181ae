// The budget tree through the built bin (SPEC §26): a cap pauses a run instead of killing it —
// the foreground `run` exits 1 with the paused line (`--json`: a `done` of reason `budget`), the
// thread stays paused in the host (`budget` in `deepdesk agents`), and `deepdesk budget set`
// raising the cap resumes it where it stopped: what was done is not done again. `budget show`
// prints the tree, which adds up with `usage`.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../core/agent/agent-harness.test-support';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../core/models/testing/scripted-server';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-budget-tree');
const PRICES = { 'openai-compatible:scripted-model': { input: 1, output: 1 } };
const isSubagent = (req: RecordedRequest) => textOf(req.messages[0]!.content).includes('You are a subagent');

function deepdesk(args: string[]) {
  return t.deepdesk([...args, '--data-dir', t.dataDir], { OTEL_EXPORTER_OTLP_ENDPOINT: '', LANGSMITH_TRACING: '' });
}
function run(args: string[]) {
  return deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args]);
}
async function agentState(threadId: string): Promise<string | undefined> {
  const r = await deepdesk(['agents', '--json']);
  return (JSON.parse(r.stdout) as Array<{ threadId: string; state: string }>).find((a) => a.threadId === threadId)?.state;
}

describe('deepdesk run under the budget tree', () => {
  it('pauses at the thread’s cap, exits 1 with the paused line; budget set raises it and the host resumes the run where it stopped, finished subagents not run again', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: PRICES, budgets: { thread: { maxCostUsd: 0.25 } } }));
    // Two subagents ($0.115 each), then the parent's next call would cross $0.25.
    const step: ScriptStep = (req) =>
      isSubagent(req)
        ? { text: `did ${lastUserText(req)}`, usage: { promptTokens: 115_000, completionTokens: 0 } }
        : req.messages.at(-1)!.role === 'tool'
          ? { text: 'all done', usage: { promptTokens: 1_000, completionTokens: 5 } }
          : { toolCalls: [1, 2].map((i) => ({ name: 'task', args: { description: `part ${i}`, subagent_type: 'general-purpose' } })), usage: { promptTokens: 10_000, completionTokens: 10 } };
    t.server.push(...Array.from({ length: 6 }, () => step));
    const r = await run(['--thread', 'tree-1', '--json', 'split it']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^deepdesk run: paused: the thread's budget of \$0\.25 is spent \(\$0\.2\d \+ this call's \$0\.\d\d\)\n$/);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; reason?: string; line?: string; scope?: string; key?: string });
    expect(events.find((e) => e.type === 'paused')).toMatchObject({ scope: 'thread:tree-1', key: 'maxCostUsd', line: expect.stringMatching(/^paused: /) });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'budget' });
    const asked = t.server.requests.length;
    expect(t.server.requests.filter(isSubagent)).toHaveLength(2);
    await expect.poll(() => agentState('tree-1'), { timeout: 20_000 }).toBe('budget');
    const shown = JSON.parse((await deepdesk(['budget', 'show', '--json'])).stdout) as { children: Array<{ children: Array<{ id: string; paused?: string }> }> };
    expect(shown.children[0]!.children.find((n) => n.id === 'tree-1')!.paused).toMatch(/^paused: the thread's budget/);

    const raised = await deepdesk(['budget', 'set', 'thread:tree-1', 'maxCostUsd', '5']);
    expect(raised).toMatchObject({ code: 0, stdout: 'thread:tree-1 maxCostUsd: $5.00\n' });
    await expect.poll(() => agentState('tree-1'), { timeout: 20_000 }).toBe('done');
    // One more call (the parent's answer); the subagents were not run again.
    expect(t.server.requests).toHaveLength(asked + 1);
    expect(t.server.requests.filter(isSubagent)).toHaveLength(2);
  });

  it('budget show --json is the tree: workspace, folder, thread, its subagents as a fan-out, adding up with usage; budget set refuses what it does not take', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: PRICES }));
    t.server.push(
      { toolCalls: [{ name: 'task', args: { description: 'look', subagent_type: 'general-purpose' } }], usage: { promptTokens: 10_000, completionTokens: 0 } },
      { text: 'looked', usage: { promptTokens: 20_000, completionTokens: 0 } },
      { text: 'done', usage: { promptTokens: 30_000, completionTokens: 0 } },
    );
    expect((await run(['--thread', 'shown', 'look around'])).code).toBe(0);
    expect((await deepdesk(['budget', 'set', 'workspace', 'dailyUsd', '10'])).code).toBe(0);
    const tree = JSON.parse((await deepdesk(['budget', 'show', '--json'])).stdout) as {
      kind: string;
      spentUsd: number;
      capUsd: number | null;
      children: Array<{ kind: string; path: string; spentUsd: number; children: Array<{ kind: string; id: string; spentUsd: number; children: Array<{ kind: string; id: string; spentUsd: number }> }> }>;
    };
    expect(tree).toMatchObject({ kind: 'workspace', capUsd: 10, spentUsd: expect.closeTo(0.06, 9) });
    expect(tree.children).toEqual([expect.objectContaining({ kind: 'folder', path: t.folder, spentUsd: expect.closeTo(0.06, 9) })]);
    const thread = tree.children[0]!.children[0]!;
    expect(thread).toMatchObject({ kind: 'thread', id: 'shown', spentUsd: expect.closeTo(0.06, 9), heldUsd: 0, inputTokens: 60_000 });
    expect(thread.children).toEqual([expect.objectContaining({ kind: 'fanout', id: 'task general-purpose', spentUsd: expect.closeTo(0.02, 9) })]);
    const usage = JSON.parse((await deepdesk(['usage', '--json'])).stdout) as { total: { costUsd: number } };
    expect(usage.total.costUsd).toBeCloseTo(tree.spentUsd, 9);
    expect((await deepdesk(['budget', 'show'])).stdout).toContain(`  ${t.folder}: spent $0.0600`);
    const bad = await deepdesk(['budget', 'set', 'workspace', 'maxSpawns', '3']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('the workspace takes dailyUsd or monthlyUsd, not maxSpawns');
    expect((await deepdesk(['budget', 'set', 'thread', 'maxConcurrent', '0'])).code).toBe(2);
  });
});

describe('the unattended cap', () => {
  it('pauses what a thread spends after the person’s last touch past budgets.thread.unattendedUsd; attaching to it touches it, and it goes on', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: PRICES, budgets: { thread: { unattendedUsd: 0.15 } } }));
    const step = { toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens: 100_000, completionTokens: 0 } };
    // The first call's $0.10 and the next one's worst case (its prompt as the provider counted the last: $0.10) cross $0.15.
    t.server.push(step, { ...step, usage: { promptTokens: 1_000, completionTokens: 0 } }, { text: 'went on', usage: { promptTokens: 1_000, completionTokens: 1 } });
    const r = await run(['--thread', 'alone', 'keep listing']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^deepdesk run: paused: what the thread's budget lets be spent unattended, \$0\.15 is spent \(\$0\.10 \+ this call's \$0\.1\d\)\n$/);
    expect(t.server.requests).toHaveLength(1);
    await expect.poll(() => agentState('alone'), { timeout: 20_000 }).toBe('budget');
    const attached = await deepdesk(['attach', 'alone']);
    expect(attached.stdout).toContain('went on');
    expect(t.server.requests).toHaveLength(3);
  });
});

describe('run --thread of a thread paused at its cap', () => {
  it('follows that run: without a new --max-cost it says the paused line again (exit 1); with one it raises the run and the run goes on', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: PRICES }));
    const step = { toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens: 100_000, completionTokens: 0 } };
    t.server.push(step, { text: 'finished', usage: { promptTokens: 1_000, completionTokens: 1 } });
    const first = await run(['--thread', 'again', '--max-cost', '0.15', 'list']);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/^deepdesk run: paused: this run's budget of \$0\.15 is spent/);
    const same = await run(['--thread', 'again', 'go on']);
    expect(same.code).toBe(1);
    expect(same.stderr).toMatch(/^deepdesk run: paused: this run's budget of \$0\.15 is spent/);
    expect(t.server.requests).toHaveLength(1);
    const raised = await run(['--thread', 'again', '--max-cost', '1', 'go on']);
    expect(raised).toMatchObject({ code: 0, stdout: 'finished\n' });
    expect(t.server.requests).toHaveLength(2);
  });
});
