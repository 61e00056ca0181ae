// A thread's fan-out (SPEC §26), by effect on the scripted server: the spawn cap is never crossed,
// a large turn asks once, at most maxConcurrent subagents call the model at once, and the run's
// end and the model are told honestly how many parts finished, failed and never started.

import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../models/testing/scripted-server';
import { ALLOW_ALL, createHarness, textOf, toolMessages, type Harness, type HarnessOptions } from './agent-harness.test-support';
import type { AgentEvent } from './types';

let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const isSubagent = (req: RecordedRequest) => textOf(req.messages[0]!.content).includes('You are a subagent');
const tasks = (n: number) => Array.from({ length: n }, (_, i) => ({ name: 'task', args: { description: `part ${i + 1}`, subagent_type: 'general-purpose' } }));

/** The parent asks for as many tasks as the person's message says, then answers; each subagent answers with `sub(req)` (default: its part's name). */
function fanOut(n: number, sub: (req: RecordedRequest) => ScriptStep | Promise<ScriptStep> = (req) => ({ text: `did ${textOf(req.messages.at(-1)!.content)}` })): ScriptStep[] {
  const step: ScriptStep = (req) => (isSubagent(req) ? sub(req) : req.messages.at(-1)!.role === 'tool' ? { text: 'parent done' } : { toolCalls: tasks(Number(/\d+/.exec(lastUserText(req))![0])) });
  return Array.from({ length: 2 * n + 4 }, () => step);
}

const subagentCalls = (harness: Harness) => harness.server.requests.filter(isSubagent).length;
const done = (events: AgentEvent[]) => events.findLast((e): e is Extract<AgentEvent, { type: 'done' }> => e.type === 'done' && e.parentToolCallId === undefined)!;
/** Each task call's result as last told (one a step's count was added to is told again). */
const taskResults = (events: AgentEvent[]) => [
  ...new Map(events.filter((e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result' && e.name === 'task' && e.parentToolCallId === undefined).map((e) => [e.id, e])).values(),
];

async function harness(options: HarnessOptions): Promise<Harness> {
  h = await createHarness({ ...options });
  return h;
}

describe('fan-out (SPEC §26)', () => {
  it('a 40-task turn under a spawn cap of 20 asks once; allowed, the first 20 start and 20 are not started (spawn cap); done.fanOut says so', async () => {
    const run = await harness({ script: fanOut(40), rules: [], fanOut: { maxSpawns: 20 }, decisions: [{ type: 'approve' }], prices: { 'openai-compatible:scripted-model': { input: 3, output: 15 } } });
    const result = await run.run('do 40 things');
    expect(result.reason).toBe('completed');
    expect(run.approvals).toHaveLength(1);
    expect(run.approvals[0]!.toolName).toBe('task');
    expect(run.approvals[0]!.reason).toMatch(/^Start 40 subagents: the first 20 \(about \$[\d.]+ for their first model calls\); 20 are over the thread's spawn cap/);
    expect(subagentCalls(run)).toBe(20);
    const results = taskResults(run.events);
    expect(results.filter((r) => r.output.startsWith('Error: not started (spawn cap)'))).toHaveLength(20);
    expect(results.filter((r) => r.output.startsWith('did part'))).toHaveLength(20);
    // The first ones start, in the turn's order.
    expect(new Set(run.server.requests.filter(isSubagent).map((r) => textOf(r.messages.at(-1)!.content)))).toEqual(new Set(tasks(20).map((t) => t.args.description)));
    expect(done(run.events).fanOut).toEqual({ total: 40, finished: 20, failed: 0, paused: 0, notStarted: 20, line: '20 of 40 finished, 20 not started' });
    // The model reads the count under the turn's results.
    const last = toolMessages(run.server.requests.at(-1)!).map((m) => textOf(m.content)).at(-1)!;
    expect(last).toContain('Subagents of this turn: 20 of 40 finished, 20 not started.');

    // The cap is the thread's over its life: its next turn starts none, and nobody is asked.
    run.server.push(...fanOut(2));
    await run.run('do 2 more');
    expect(run.approvals).toHaveLength(1);
    expect(subagentCalls(run)).toBe(20);
    expect(done(run.events).fanOut?.line).toBe('0 of 2 finished, 2 not started');
    expect(textOf(toolMessages(run.server.requests.at(-1)!).at(-1)!.content)).toContain('Most of them did not finish');
  });

  it('refused, none of the turn\'s subagents start and each task result says why', async () => {
    const run = await harness({ script: fanOut(16), rules: [], decisions: [{ type: 'reject', message: 'too many' }] });
    await run.run('do 16 things');
    expect(run.approvals).toHaveLength(1);
    // Without the model's price, the question says the cost is unknown rather than guess it.
    expect(run.approvals[0]!.reason).toBe('Start 16 subagents (cost unknown: no price for openai-compatible:scripted-model)');
    expect(subagentCalls(run)).toBe(0);
    const results = taskResults(run.events);
    expect(results).toHaveLength(16);
    for (const r of results) expect(r.output).toMatch(/^Error: not started: the person refused to start 16 subagents in one turn, so none of this turn's subagents started\. They said: too many/);
    expect(done(run.events).fanOut?.line).toBe('0 of 16 finished, 16 not started');
    const approvalEvents = run.events.filter((e) => e.type === 'approval');
    expect(approvalEvents.map((e) => (e.type === 'approval' ? e.status : ''))).toEqual(['pending', 'rejected']);
  });

  it('15 at once does not ask; over 15, a rule of the person\'s naming task or auto mode allows without asking', async () => {
    let run = await harness({ script: fanOut(15), rules: [] });
    await run.run('do 15');
    expect(run.approvals).toHaveLength(0);
    expect(subagentCalls(run)).toBe(15);
    await run.dispose();

    run = await harness({ script: fanOut(16), rules: [{ tools: ['task'], decision: 'allow' }] });
    await run.run('do 16');
    expect(run.approvals).toHaveLength(0);
    expect(subagentCalls(run)).toBe(16);
    expect(done(run.events).fanOut?.line).toBe('16 of 16 finished');
    await run.dispose();

    run = await harness({ script: fanOut(16), rules: [], mode: 'auto' });
    await run.run('do 16');
    expect(run.approvals).toHaveLength(0);
    expect(subagentCalls(run)).toBe(16);

    await run.dispose();
    run = await harness({ script: fanOut(16), rules: [{ tools: ['task'], decision: 'deny' }], mode: 'auto' });
    await run.run('do 16');
    expect(run.approvals).toHaveLength(0);
    expect(subagentCalls(run)).toBe(0);
    expect(taskResults(run.events)[0]!.output).toMatch(/^Error: not started: starting 16 subagents in one turn is not allowed/);
  });

  it('with maxConcurrent 3, never more than 3 subagent model calls are in flight; the others start as those end', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = async (req: RecordedRequest): Promise<ScriptStep> => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 150));
      inFlight--;
      return { text: `did ${textOf(req.messages.at(-1)!.content)}` };
    };
    const run = await harness({ script: fanOut(9, slow), rules: ALLOW_ALL, fanOut: { maxConcurrent: 3 } });
    await run.run('do 9');
    expect(subagentCalls(run)).toBe(9);
    expect(most).toBe(3);
    expect(done(run.events).fanOut?.line).toBe('9 of 9 finished');
    // Every part finished: the results are the subagents' own, with no count added.
    expect(toolMessages(run.server.requests.at(-1)!).every((m) => textOf(m.content).startsWith('did part'))).toBe(true);
    await run.dispose();

    // Without a setting, 8 at once.
    most = 0;
    const byDefault = await harness({ script: fanOut(10, slow), rules: ALLOW_ALL });
    await byDefault.run('do 10');
    expect(subagentCalls(byDefault)).toBe(10);
    expect(most).toBe(8);
  });

  it('a fan-out most of whose parts failed is never reported clean: the model reads the count and that most did not finish', async () => {
    const failing = (req: RecordedRequest): ScriptStep => (textOf(req.messages.at(-1)!.content) === 'part 1' ? { text: 'fine' } : { error: { status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } } });
    const run = await harness({ script: fanOut(3, failing), rules: ALLOW_ALL });
    await run.run('do 3');
    expect(done(run.events).fanOut).toMatchObject({ total: 3, finished: 1, failed: 2, notStarted: 0, line: '1 of 3 finished, 2 failed' });
    const seen = toolMessages(run.server.requests.at(-1)!).map((m) => textOf(m.content));
    expect(seen.at(-1)).toContain('Subagents of this turn: 1 of 3 finished, 2 failed. Most of them did not finish: say so, and do not report the result as complete.');
  });
});
