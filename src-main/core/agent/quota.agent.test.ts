// SPEC §26 "A quota error stops the fan-out", by effect on the real agent and provider clients
// against scripted servers: a quota answer is asked once, the run ends `quota` naming the provider
// and what it said, no later call on that provider goes out until the person sends a message,
// another provider goes on, and a fan-out stops making requests once one part met it.
import { afterEach, describe, expect, it } from 'vitest';
import { createChatModel } from '../models/create-model';
import { quotaTripped, resetQuota } from '../models/quota-breaker';
import { anthropicMessageStream, startScriptedAnthropicServer, type ScriptedAnthropicServer } from '../models/testing/scripted-anthropic-server';
import { startScriptedServer, type RecordedRequest, type ScriptStep, type ScriptedServer } from '../models/testing/scripted-server';
import type { ChatModel } from '../models/types';
import { createHarness, textOf, type Harness } from './agent-harness.test-support';
import type { AgentEvent } from './types';

const harnesses: Harness[] = [];
const servers: Array<ScriptedServer | ScriptedAnthropicServer> = [];
afterEach(async () => {
  resetQuota();
  await Promise.all([...harnesses.splice(0).map((h) => h.dispose()), ...servers.splice(0).map((s) => s.close())]);
});

async function harness(options: Parameters<typeof createHarness>[0]): Promise<Harness> {
  const h = await createHarness(options);
  harnesses.push(h);
  return h;
}

async function anthropicModel(replies: Parameters<typeof startScriptedAnthropicServer>[0]): Promise<{ server: ScriptedAnthropicServer; model: ChatModel }> {
  const server = await startScriptedAnthropicServer(replies);
  servers.push(server);
  return { server, model: createChatModel({ model: 'anthropic:claude-sonnet-4-5', baseUrl: server.url, apiKey: 'sk-ant-test', env: {}, retry: { baseDelayMs: 1, maxDelayMs: 5 } }) };
}

const OPENAI_QUOTA: ScriptStep = {
  error: { status: 429, body: { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } } },
};
const ANSWER = anthropicMessageStream([{ text: 'answered' }], 'end_turn');

const errorOf = (events: AgentEvent[]) => events.find((e) => e.type === 'error' && e.parentToolCallId === undefined);

describe('a quota answer ends the run `quota`', () => {
  it('OpenAI-compatible 429 insufficient_quota: one request, never retried; later calls on it are refused without a request, another provider goes on, and the person’s next message tries again', async () => {
    const h = await harness({ script: [OPENAI_QUOTA] });
    const result = await h.run('hello');
    expect(result.reason).toBe('quota');
    expect(h.server.requests).toHaveLength(1);
    expect(h.events.some((e) => e.type === 'retry')).toBe(false);
    expect(errorOf(h.events)).toMatchObject({
      message: expect.stringMatching(/^quota: openai-compatible \(http:\/\/127\.0\.0\.1:\d+\/v1\) is out of quota or credit — it said "HTTP 429: You exceeded your current quota, please check your plan and billing details\."; no new model call goes to it until you send a message$/),
      status: 429,
      problem: { kind: 'quota', lasting: true },
    });
    expect(h.events.at(-1)).toMatchObject({ type: 'done', reason: 'quota' });

    // The thread resumed without a new message: refused before any request.
    h.server.push({ text: 'never asked' });
    expect((await h.run(null)).reason).toBe('quota');
    expect(h.server.requests).toHaveLength(1);

    // Another provider meanwhile: unaffected.
    const anthropic = await anthropicModel([ANSWER]);
    const other = await harness({ model: anthropic.model });
    expect(await other.run('hello')).toEqual({ text: 'answered', reason: 'completed' });

    // The person tries again: the call goes.
    expect(await h.run('I added credit')).toEqual({ text: 'never asked', reason: 'completed' });
    expect(h.server.requests).toHaveLength(2);
  });

  it('HTTP 402: one request, `quota`', async () => {
    const h = await harness({ script: [{ error: { status: 402, body: { error: { message: 'Insufficient credits', code: 402 } } } }, { text: 'never asked' }] });
    expect((await h.run('hello')).reason).toBe('quota');
    expect(h.server.requests).toHaveLength(1);
    expect(errorOf(h.events)?.type === 'error' && errorOf(h.events)).toMatchObject({ message: expect.stringContaining('it said "HTTP 402: Insufficient credits"') });
    expect((await h.run(null)).reason).toBe('quota');
    expect(h.server.requests).toHaveLength(1);
  });

  it('Anthropic billing_error: one request, `quota`; its breaker leaves the OpenAI-compatible server alone', async () => {
    const anthropic = await anthropicModel([
      { status: 402, json: { type: 'error', error: { type: 'billing_error', message: 'There is an issue with your billing information.' } } },
      ANSWER,
    ]);
    const h = await harness({ model: anthropic.model });
    expect((await h.run('hello')).reason).toBe('quota');
    expect(anthropic.server.bodies).toHaveLength(1);
    expect(errorOf(h.events)?.type === 'error' && errorOf(h.events)).toMatchObject({ message: expect.stringMatching(/^quota: anthropic \(http:\/\/127\.0\.0\.1:\d+\/v1\) .*it said "HTTP 402: There is an issue with your billing information\."/) });
    expect((await h.run(null)).reason).toBe('quota');
    expect(anthropic.server.bodies).toHaveLength(1);

    const other = await harness({ script: [{ text: 'fine' }] });
    expect((await other.run('hello')).reason).toBe('completed');
  });
});

describe('a quota answer stops the fan-out', () => {
  it('8 subagents at once, the 5th call answered out of quota: no model request after it, the waiting subagents stop `quota`, and the run ends `quota`', async () => {
    const h = await harness({});
    let subagentCalls = 0;
    let allIn: () => void = () => undefined;
    const allInFlight = new Promise<void>((resolve) => (allIn = resolve));
    let requestsAtQuota = -1;
    const tripped = () => quotaTripped({ provider: 'openai-compatible', endpoint: h.server.url });
    const subagentCall = async (): Promise<ScriptStep> => {
      // Every subagent's first call is in flight before any is answered.
      if (++subagentCalls === 8) allIn();
      const call = subagentCalls + 1;
      await allInFlight;
      if (call === 5) {
        requestsAtQuota = h.server.requests.length;
        return OPENAI_QUOTA;
      }
      // The others are answered once the quota answer reached the client (as slower calls would be), each with a step to do.
      await expect.poll(tripped, { timeout: 10_000 }).toBeDefined();
      return { toolCalls: [{ name: 'ls', args: { path: '/' } }] };
    };
    const tasks = Array.from({ length: 8 }, (_, i) => ({ name: 'task', args: { description: `look at part ${i + 1}`, subagent_type: 'general-purpose' } }));
    h.server.push({ toolCalls: tasks }, ...Array.from({ length: 8 }, () => subagentCall), { text: 'all eight parts are done' });

    const result = await h.run('split the work in eight');
    expect(result.reason).toBe('quota');
    expect(requestsAtQuota).toBe(9);
    expect(h.server.requests).toHaveLength(9);
    // Each subagent's task result says quota: none reports a finish.
    const taskResults = h.events.filter((e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result' && e.name === 'task' && e.parentToolCallId === undefined);
    expect(new Set(taskResults.map((r) => r.id)).size).toBe(8);
    for (const r of taskResults) {
      expect(r.isError).toBe(true);
      expect(r.output).toMatch(/^Error: subagent general-purpose stopped \(quota\): quota: openai-compatible .* it said "HTTP 429: You exceeded your current quota/);
    }
    // The 7 that had a step to do ran it, and their next call never went out.
    expect(h.events.filter((e) => e.type === 'tool_result' && e.name === 'ls')).toHaveLength(7);
    expect(errorOf(h.events)).toMatchObject({ message: expect.stringMatching(/^quota: openai-compatible/), problem: { kind: 'quota' } });
    expect(h.events.at(-1)).toMatchObject({ type: 'done', reason: 'quota', fanOut: { total: 8, finished: 0, failed: 8, line: '0 of 8 finished, 8 failed (quota)' } });
  });

  it('a subagent on another provider meets the quota: the parent may answer, but its run ends `quota`, never `completed`', async () => {
    const cheap = await startScriptedServer([OPENAI_QUOTA]);
    servers.push(cheap);
    const cheapModel = createChatModel({ model: 'openai-compatible:cheap', baseUrl: cheap.url, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const h = await harness({
      subagents: [{ name: 'cheap', description: 'on a cheaper model', systemPrompt: 'Be brief.', model: 'openai-compatible:cheap' }],
      resolveModel: () => cheapModel,
      script: [{ toolCalls: [{ name: 'task', args: { description: 'count the files', subagent_type: 'cheap' } }] }, (request: RecordedRequest) => ({ text: `the subagent said: ${textOf(request.messages.at(-1)?.content).slice(0, 40)}` })],
    });
    const result = await h.run('count the files through the cheap subagent');
    expect(cheap.requests).toHaveLength(1);
    expect(h.server.requests).toHaveLength(2);
    expect(result.reason).toBe('quota');
    expect(result.text).toMatch(/^the subagent said: Error: subagent cheap stopped \(quota\)/);
    expect(errorOf(h.events)).toMatchObject({ message: expect.stringContaining(`quota: openai-compatible (${cheap.url}) is out of quota`) });
    expect(h.events.at(-1)).toMatchObject({ type: 'done', reason: 'quota' });
  });
});
