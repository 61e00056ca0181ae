// `deepdesk run` fanning out (SPEC §26): settings.json's `budgets.thread.maxSpawns` caps the
// subagents a turn starts, a turn over 15 asks first (`--approve` answers it), and `--json`'s
// done event carries the honest count (`fanOut`).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../core/agent/agent-harness.test-support';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../core/models/testing/scripted-server';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-fan-out');

const isSubagent = (req: RecordedRequest) => textOf(req.messages[0]!.content).includes('You are a subagent');

/** The parent asks for `n` tasks then answers; each subagent answers with its part. */
function fanOut(n: number): ScriptStep[] {
  const step: ScriptStep = (req) =>
    isSubagent(req)
      ? { text: `did ${lastUserText(req)}` }
      : req.messages.at(-1)!.role === 'tool'
        ? { text: 'parent done' }
        : { toolCalls: Array.from({ length: n }, (_, i) => ({ name: 'task', args: { description: `part ${i + 1}`, subagent_type: 'general-purpose' } })) };
  return Array.from({ length: n + 2 }, () => step);
}

function run(args: string[]) {
  return t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args], { OTEL_EXPORTER_OTLP_ENDPOINT: '', LANGSMITH_TRACING: '' });
}

type Event = { type: string; name?: string; status?: string; reason?: string; output?: string; parentToolCallId?: string; fanOut?: unknown };
const events = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Event);

describe('deepdesk run --json, fanning out', () => {
  it('40 tasks under budgets.thread.maxSpawns 20, allowed by --approve auto: asked once, 20 start, done.fanOut says "20 of 40 finished, 20 not started"', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ budgets: { thread: { maxSpawns: 20, maxConcurrent: 4 } } }));
    t.server.push(...fanOut(40));
    const r = await run(['--approve', 'auto', '--json', 'do forty things']);
    expect(r.code).toBe(0);
    const seen = events(r.stdout);
    expect(t.server.requests.filter(isSubagent)).toHaveLength(20);
    const asked = seen.filter((e) => e.type === 'approval' && e.name === 'task' && e.parentToolCallId === undefined);
    expect(asked.map((e) => e.status)).toEqual(['pending', 'approved']);
    const capped = new Set(seen.filter((e) => e.type === 'tool_result' && e.name === 'task' && e.output?.startsWith('Error: not started (spawn cap)')).map((e) => (e as { id?: string }).id));
    expect(capped.size).toBe(20);
    expect(seen.at(-1)).toEqual({
      type: 'done',
      threadId: expect.any(String),
      text: 'parent done',
      reason: 'completed',
      usage: expect.any(Object),
      fanOut: { total: 40, finished: 20, failed: 0, paused: 0, notStarted: 20, line: '20 of 40 finished, 20 not started' },
    });
  });

  it('--approve deny refuses a 16-task turn: none starts, done.fanOut says none finished', async () => {
    t.server.push(...fanOut(16));
    const r = await run(['--approve', 'deny', '--json', 'do sixteen things']);
    expect(r.code).toBe(0);
    expect(t.server.requests.filter(isSubagent)).toHaveLength(0);
    expect(events(r.stdout).at(-1)).toMatchObject({ type: 'done', fanOut: { total: 16, finished: 0, notStarted: 16, line: '0 of 16 finished, 16 not started' } });
  });

  it('without --json, a fan-out that did not all finish is said on stderr: one of two over a spawn cap of 1', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ budgets: { thread: { maxSpawns: 1 } } }));
    t.server.push(...fanOut(2));
    const r = await run(['--approve', 'auto', 'do two things']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('parent done\n');
    expect(r.stderr).toContain('deepdesk: subagents: 1 of 2 finished, 1 not started\n');
    expect(t.server.requests.filter(isSubagent)).toHaveLength(1);
    // The Agents view (and deepdesk agents) says it on the run's row.
    const agents = JSON.parse((await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir])).stdout) as Array<{ state: string; message?: string }>;
    expect(agents).toEqual([expect.objectContaining({ state: 'done', message: 'subagents: 1 of 2 finished, 1 not started' })]);
  });
});
