// Summarization must make progress (issue 10 §3): with a small window and a huge last
// tool result the harness used to summarize on every step. Now it summarizes at most once,
// cuts older results to previews, and ends with a clear error when nothing can fit.

import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../models/testing/scripted-server';
import { assertToolPairing, createHarness, textOf, type Harness } from './agent-harness.test-support';
import type { Middleware } from './middleware';

let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const isSummarizer = (req: RecordedRequest) => textOf(req.messages[0]!.content).includes('You compress the earlier part');
const SUMMARY = { text: '## Intent\nlook\n## Done so far\nran things\n## Artifacts\nnone\n## Open questions and next steps\ngo on' };

/** Answers summarizer calls with a summary and everything else from `steps`, in order. */
function routed(steps: ScriptStep[]): ScriptStep[] {
  const queue = [...steps];
  const step: ScriptStep = (req) => {
    if (isSummarizer(req)) return SUMMARY;
    const next = queue.shift() ?? { text: 'script exhausted' };
    return typeof next === 'function' ? next(req) : next;
  };
  return Array.from({ length: 60 }, () => step);
}

/** Tokens of the system prompt and tool schemas (what every request carries). */
async function baseTokens(): Promise<number> {
  let base = 0;
  const probe: Middleware = { name: 'probe', beforeModel: async (ctx, request) => void (base = ctx.countRequestTokens({ ...request, messages: [] })) };
  const probeHarness = await createHarness({ extraMiddleware: [probe], script: [{ text: 'ok' }] });
  await probeHarness.run('hi');
  await probeHarness.dispose();
  return base;
}

// ~4,000 tokens of output, under the eviction threshold (80,000 characters).
const HUGE = { toolCalls: [{ id: 'huge', name: 'execute', args: { command: 'seq 100000 101332' } }] };
const HUGE_TOKENS = 4_000;

describe('summarization storms', () => {
  it('ends with a clear error, after at most one summary, when the last result alone cannot fit', async () => {
    const base = await baseTokens();
    h = await createHarness({ contextWindow: base + 1_500, script: routed([HUGE, { text: 'never reached' }]) });
    const result = await h.run('count');
    expect(result.reason).toBe('error');
    expect(h.events.filter((e) => e.type === 'summarized').length).toBeLessThanOrEqual(1);
    const error = h.events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ message: expect.stringMatching(/no longer fits the model's context window .*latest execute result alone is about \d+ tokens/) });
    expect(h.server.requests.filter((r) => !isSummarizer(r))).toHaveLength(1);
  });

  it('makes progress: one summary at most, older results cut to a preview that names the full text', async () => {
    const base = await baseTokens();
    const window = Math.round((base + HUGE_TOKENS) / 0.93);
    h = await createHarness({
      contextWindow: window,
      script: routed([
        HUGE,
        { toolCalls: [{ name: 'execute', args: { command: 'echo small-1' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'echo small-2' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'echo small-3' } }] },
        { text: 'done' },
      ]),
    });
    const result = await h.run('count, then echo');
    expect(result).toMatchObject({ reason: 'completed', text: 'done' });
    expect(h.events.filter((e) => e.type === 'summarized').length).toBeLessThanOrEqual(1);

    const agentRequests = h.server.requests.filter((r) => !isSummarizer(r));
    expect(agentRequests).toHaveLength(5);
    const last = agentRequests.at(-1)!;
    assertToolPairing(last);
    expect(lastUserText(last)).toBe('count, then echo');
    const sent = JSON.stringify(last.messages);
    expect(sent).not.toContain('100700');
    if (last.messages.some((m) => m.tool_call_id === 'huge')) {
      const cut = textOf(last.messages.find((m) => m.tool_call_id === 'huge')!.content);
      expect(cut).toMatch(/^\[This older tool result was cut to save context \(\d+ characters\)\. The full text is in \/large_tool_results\/huge;/);
      const full = await h.ws.mounts.backend.readRaw('/large_tool_results/huge');
      expect(Buffer.from(full.data!).toString()).toContain('100700');
    }
    // The stored history still has everything.
    expect(JSON.stringify(h.state.messages)).toContain('100700');
  });

  it('truncates long arguments of older calls in what the model sees', async () => {
    const base = await baseTokens();
    const content = 'line of the big file\n'.repeat(600);
    h = await createHarness({
      contextWindow: Math.round((base + 4_500) / 0.93),
      script: routed([
        { toolCalls: [{ id: 'w', name: 'write_file', args: { file_path: '/big.txt', content } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'seq 1 1200' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'echo x' } }] },
        { text: 'done' },
      ]),
    });
    const result = await h.run('write it');
    expect(result.reason).toBe('completed');
    const last = h.server.requests.filter((r) => !isSummarizer(r)).at(-1)!;
    const call = last.messages.flatMap((m) => (m.tool_calls as Array<{ id: string; function: { arguments: string } }> | undefined) ?? []).find((c) => c.id === 'w');
    if (call) expect(JSON.parse(call.function.arguments).content).toMatch(/^line of the big file\n.*argument truncated to save context: 12600 characters\]$/s);
    expect(h.events.filter((e) => e.type === 'summarized').length).toBeLessThanOrEqual(1);
  });
});
