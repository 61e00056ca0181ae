// Cost drift (SPEC §26) as a person meets it: turns of `deepdesk run` against the scripted server
// at a price set in Settings, then `deepdesk usage --json` (its drifts) and `deepdesk threads
// export` (costDrift on the model_call lines of the turn that drifted).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usageReportSchema } from '../app/contract/usage';
import type { ScriptStep } from '../core/models/testing/scripted-server';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-cost-drift');

const NO_TELEMETRY = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', LANGSMITH_TRACING: '', LANGCHAIN_TRACING_V2: '' };

/** One turn costing `cents` (at $10 per million tokens): `tools` ls calls in its first step, then the answer, half the cost each. */
function turnSteps(cents: number, tools = 1): ScriptStep[] {
  const promptTokens = cents * 500;
  return [
    { toolCalls: Array.from({ length: tools }, () => ({ name: 'ls', args: { path: '/' } })), usage: { promptTokens, completionTokens: 0 } },
    { text: 'Done.', usage: { promptTokens, completionTokens: 0 } },
  ];
}

async function turn(thread: string, cents: number, tools = 1): Promise<void> {
  t.server.push(...turnSteps(cents, tools));
  const r = await t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--thread', thread, 'look again'], NO_TELEMETRY);
  expect(r).toMatchObject({ code: 0, stderr: '' });
}

async function exported(thread: string): Promise<Array<{ type: string; turn?: number; costDrift?: number; toolCalls?: number }>> {
  const r = await t.deepdesk(['threads', 'export', thread]);
  expect(r.code).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string })
    .filter((l) => l.type === 'model_call');
}

describe('cost drift', () => {
  it('a 4th turn at 3× the usual with as many tool calls is marked: usage --json drifts, costDrift on its export rows; more tool calls, or fewer than 3 earlier turns, are not', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: { 'openai-compatible:scripted-model': { input: 10, output: 10 } } }));
    for (const thread of ['drifted', 'busier']) for (let n = 0; n < 3; n++) await turn(thread, 1);
    await turn('drifted', 3);
    await turn('busier', 3, 2);
    for (const cents of [1, 1, 3]) await turn('young', cents);

    const r = await t.deepdesk(['usage', '--json']);
    expect(r.code).toBe(0);
    const report = usageReportSchema.parse(JSON.parse(r.stdout));
    expect(report.drifts).toEqual([{ thread: 'drifted', turn: 4, ratio: 3 }]);
    expect(report.rows.find((row) => row.key === 'drifted')?.costUsd).toBeCloseTo(0.06, 10);

    const calls = await exported('drifted');
    expect(calls.map((c) => [c.turn, c.toolCalls, c.costDrift])).toEqual([
      [1, 1, undefined],
      [1, 0, undefined],
      [2, 1, undefined],
      [2, 0, undefined],
      [3, 1, undefined],
      [3, 0, undefined],
      [4, 1, 3],
      [4, 0, 3],
    ]);
    for (const thread of ['busier', 'young']) expect((await exported(thread)).some((c) => c.costDrift !== undefined)).toBe(false);

    // The table says it too; --since a later day leaves it out.
    expect((await t.deepdesk(['usage'])).stdout).toContain("Turn 4 of thread drifted: cost ×3 the thread's median\n");
    const later = usageReportSchema.parse(JSON.parse((await t.deepdesk(['usage', '--json', '--since', '2999-01-01'])).stdout));
    expect(later.drifts).toEqual([]);
  });
});
