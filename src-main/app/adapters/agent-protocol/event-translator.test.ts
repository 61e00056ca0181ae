import { describe, expect, it, vi } from 'vitest';
import { EventTranslator } from './event-translator';
import { KeptPartsBudget, RunStream } from './run-stream';

describe('EventTranslator', () => {
  it('builds the whole state only for `values`, or when a wait or join reads it', () => {
    const stream = new RunStream(new KeptPartsBudget(1_000_000));
    const translator = new EventTranslator({ runId: 'r', threadId: 't', modes: new Set(['updates']), stream, messages: [{ role: 'user', content: 'hi' }] });
    const state = vi.spyOn(translator, 'state');
    translator.begin();
    for (let i = 0; i < 50; i++) {
      translator.event({ threadId: 't', type: 'tool_call', id: `c${i}`, name: 'ls', args: {} });
      translator.event({ threadId: 't', type: 'tool_result', id: `c${i}`, name: 'ls', output: 'a.txt', isError: false });
    }
    expect(state).not.toHaveBeenCalled();
    expect((stream.last as { messages: unknown[] }).messages).toHaveLength(101);
    expect(state).toHaveBeenCalledTimes(1);
  });
});
