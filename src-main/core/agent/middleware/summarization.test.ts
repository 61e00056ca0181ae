import { describe, expect, it } from 'vitest';
import { StateBackend } from '../../backends/store/state';
import { formatSize } from '../../media/kinds';
import { makePng } from '../../media/testing/fixtures';
import { ZERO_USAGE, type ChatMessage, type ChatModel, type ModelEvent, type ModelRequest } from '../../models/types';
import { ReadGuard } from '../../tools/read-guard';
import { runAgent } from '../loop';
import { newThreadState } from '../types';
import { archivePathFor, chooseCut, renderMessage, summarizationMiddleware } from './summarization';

const big = (n: number) => 'word '.repeat(n);
const turn = (i: number): ChatMessage[] => [
  { role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'execute', args: {}, argsText: '{"command":"ls"}' }] },
  { role: 'tool', toolCallId: `c${i}`, toolName: 'execute', content: big(200) },
];

describe('chooseCut', () => {
  const messages: ChatMessage[] = [{ role: 'user', content: big(200) }, ...turn(1), ...turn(2), ...turn(3), { role: 'assistant', content: 'done' }];

  it('never lands on a tool result and keeps at most the budget', () => {
    for (const budget of [10, 150, 300, 500, 1_000, 10_000]) {
      const cut = chooseCut(messages, 0, budget);
      expect(messages[cut]?.role, `budget ${budget}`).not.toBe('tool');
      expect(cut).toBeGreaterThan(0);
    }
  });

  it('keeps at least the last turn even when it alone is over budget', () => {
    expect(chooseCut(messages, 0, 1)).toBe(messages.length - 1);
    const endsWithTool = messages.slice(0, -1);
    expect(chooseCut(endsWithTool, 0, 1)).toBe(endsWithTool.length - 2);
  });

  it('summarizes nothing when nothing precedes the start', () => {
    expect(chooseCut(messages.slice(0, 1), 0, 1)).toBe(0);
  });
});

describe('archive and transcript', () => {
  it('names the archive after the thread, safely', () => {
    expect(archivePathFor('abc-123')).toBe('/conversation_history/abc-123.md');
    expect(archivePathFor('../x/y')).toBe('/conversation_history/___x_y.md');
  });

  it('renders tool calls and cuts long results only when asked', () => {
    const [assistant, tool] = turn(1);
    expect(renderMessage(assistant!, 10)).toContain('tool call execute (c1): {"command":"ls"}');
    expect(renderMessage(tool!, 10)).toMatch(/more characters\]$/);
    expect(renderMessage(tool!, Infinity)).not.toMatch(/more characters/);
  });
});

describe('media before text', () => {
  const png = makePng(1000, 1000);
  const image = (name: string) => ({ type: 'image' as const, mimeType: 'image/png', data: png.toString('base64'), name, bytes: png.length });
  const SUMMARY = 'The person showed two squares.';

  /** An Anthropic-costed model (1,334 tokens per 1000² image) that answers the summarizer with SUMMARY. */
  function fakeModel(contextWindow: number): ChatModel & { requests: ModelRequest[] } {
    const requests: ModelRequest[] = [];
    return {
      id: 'anthropic:claude-test',
      provider: 'anthropic',
      contextWindow,
      requests,
      async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
        requests.push(request);
        yield { type: 'text-delta', text: request.system.startsWith('You compress') ? SUMMARY : 'Next, tests.' };
        yield { type: 'finish', stopReason: 'stop', usage: ZERO_USAGE };
      },
    };
  }

  async function run(firstText: string, contextWindow: number, mediaFirst = false) {
    const model = fakeModel(contextWindow);
    const state = newThreadState('t-media');
    const media = [image('/a.png'), image('b.png')];
    const text = { type: 'text' as const, text: firstText };
    state.messages.push({ role: 'user', content: mediaFirst ? [...media, text] : [text, ...media] }, { role: 'assistant', content: 'Two red squares.' });
    const stored = structuredClone(state.messages);
    const def = { model, backend: new StateBackend(), tools: [], middleware: [summarizationMiddleware()], systemPrompt: 'test' };
    const result = await runAgent(def, state, { role: 'user', content: 'What next?' }, { emit: () => undefined, persist: async () => undefined, guard: new ReadGuard() });
    expect(result.reason).toBe('completed');
    // The history keeps its media: only the model's view changed.
    expect(state.messages.slice(0, 2)).toEqual(stored);
    const answer = model.requests.at(-1)!;
    expect(JSON.stringify(answer.messages)).not.toContain(png.toString('base64'));
    return { model, state, answer };
  }

  it('drops older media blocks first, each named in a note, without summarizing when that is enough', async () => {
    const { model, state, answer } = await run('Look at these.', 3_000);
    expect(model.requests).toHaveLength(1);
    expect(state.summary).toBeUndefined();
    expect(state.mediaDroppedBefore).toBe(2);
    const first = answer.messages[0]!;
    expect(first.content).toEqual([
      { type: 'text', text: 'Look at these.' },
      { type: 'text', text: `[image /a.png, ${formatSize(png.length)}: dropped from the context to save space; read_file it again if needed]` },
      { type: 'text', text: `[image b.png, ${formatSize(png.length)}: dropped from the context to save space; ask for it again if needed]` },
    ]);
  });

  it('summarizes text only after the media went, and the summary names the media dropped', async () => {
    // Media first: the summarizer reads a long message only as far as its chunk allows.
    const { model, state, answer } = await run(`Look at these. ${big(3_000)}`, 3_000, true);
    expect(model.requests).toHaveLength(2);
    const transcript = JSON.stringify(model.requests[0]!.messages);
    expect(transcript).toContain('[image /a.png, ');
    expect(transcript).toContain(': dropped from the context to save space');
    expect(state.summary).toContain(SUMMARY);
    expect(state.summary).toMatch(/no longer in view.*: image \/a\.png, [\d.]+ (B|KB); image b\.png, [\d.]+ (B|KB)\.$/);
    expect(answer.messages[0]!.content).toBe(state.summary);

    // A second summary keeps naming the media of the first, then those summarized now.
    state.messages.push({ role: 'user', content: [image('/c.png'), { type: 'text', text: big(3_000) }] }, { role: 'assistant', content: 'A third square.' });
    const def = { model, backend: new StateBackend(), tools: [], middleware: [summarizationMiddleware()], systemPrompt: 'test' };
    await runAgent(def, state, { role: 'user', content: 'And now?' }, { emit: () => undefined, persist: async () => undefined, guard: new ReadGuard() });
    expect(state.summary).toMatch(/no longer in view.*: image \/a\.png, [^;]+; image b\.png, [^;]+; image \/c\.png, [\d.]+ (B|KB)\.$/);
    expect(state.summary!.match(/no longer in view/g)).toHaveLength(1);
  });
});
