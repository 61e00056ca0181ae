import { describe, expect, it } from 'vitest';
import type { Backend } from '../backends/protocol';
import { givenDraft } from '../goals/draft';
import { startGoal } from '../goals/goal';
import type { ChatModel } from '../models/types';
import { ReadGuard } from '../tools/read-guard';
import { runAgent } from './loop';
import { newThreadState, type AgentEvent } from './types';

const unused: ChatModel = {
  id: 'test:unused',
  provider: 'openai-compatible',
  contextWindow: 100_000,
  price: null,
  // eslint-disable-next-line require-yield
  async *stream() {
    throw new Error('not called');
  },
};

describe("the loop's end of a goal's run", () => {
  it('a run stopped before its first step leaves its goal paused, not pursuing, and saved so', async () => {
    const state = newThreadState('t');
    state.goal = startGoal(givenDraft('make it pass', ['true']));
    const stop = new AbortController();
    stop.abort();
    const events: AgentEvent[] = [];
    let saved = 0;
    const result = await runAgent({ model: unused, backend: {} as Backend, tools: [], middleware: [], systemPrompt: 'test' }, state, { role: 'user', content: 'go' }, {
      signal: stop.signal,
      emit: (event) => events.push(event),
      persist: async () => void saved++,
      guard: new ReadGuard(),
      goals: { folder: { tree: async () => undefined, diff: async () => undefined } },
    });
    expect(result.reason).toBe('aborted');
    expect(state.goal).toMatchObject({ state: 'paused', reason: 'the run was stopped' });
    expect(events.filter((e) => e.type === 'goal').at(-1)).toMatchObject({ goal: { state: 'paused' } });
    expect(saved).toBeGreaterThan(1);
  });
});
