// Summarization must make progress (issue 10 §3): with a small window and a huge last
// tool result the harness used to summarize on every step. Now it summarizes at most once,
// cuts older results to previews, and ends with a clear error when nothing can fit.

import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../models/testing/scripted-server';
import { assertToolPairing, createHarness, textOf, type Harness } from './agent-harness.test-support';
import type { Middleware } from './middleware';
import { modelView } from './model-view';
import { newThreadState } from './types';

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

  it('compacts older messages in what the model sees, never in the stored history', () => {
    const content = 'line of the big file\n'.repeat(600);
    const state = newThreadState('t');
    state.messages.push(
      { role: 'user', content: 'write it' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'w', name: 'write_file', args: { file_path: '/big.txt', content }, argsText: JSON.stringify({ file_path: '/big.txt', content }) }] },
      { role: 'tool', toolCallId: 'w', toolName: 'write_file', content: 'Updated file /big.txt' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'r', name: 'execute', args: { command: 'seq 1 1200' }, argsText: '{"command":"seq 1 1200"}' }] },
      { role: 'tool', toolCallId: 'r', toolName: 'execute', content: 'x\n'.repeat(3000) },
      { role: 'assistant', content: '', toolCalls: [{ id: 'e', name: 'execute', args: { command: 'echo hi' }, argsText: '{"command":"echo hi"}' }] },
      { role: 'tool', toolCallId: 'e', toolName: 'execute', content: 'y\n'.repeat(3000) },
    );
    const before = JSON.stringify(state.messages);
    state.compactedBefore = 5;
    const view = modelView(state);
    const write = view[1]!.role === 'assistant' ? view[1]!.toolCalls![0]! : undefined;
    expect((write!.args as { content: string }).content).toMatch(/^line of the big file\n.*argument truncated to save context: 12600 characters\]$/s);
    expect(JSON.parse(write!.argsText).file_path).toBe('/big.txt');
    expect(textOf(view[4]!.content)).toMatch(/^\[This older tool result was cut to save context \(6000 characters\)\. The full text is in \/large_tool_results\/r;/);
    // The last turn stays whole, and the stored history is untouched.
    expect(view[6]!.content).toBe('y\n'.repeat(3000));
    expect(JSON.stringify(state.messages)).toBe(before);
    expect(modelView(state)[4]).toBe(view[4]);
  });
});
