import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../core/agent/types';
import { TextCoalescer } from './text-coalescer';

const text = (t: string, parentToolCallId?: string): AgentEvent => ({ type: 'text', threadId: 'a', text: t, ...(parentToolCallId !== undefined ? { parentToolCallId } : {}) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('TextCoalescer', () => {
  it('sends the first delta at once, joins the next ones until the window ends, and keeps the order with other events and sources', async () => {
    const sent: Array<{ threadId: string; event: AgentEvent }> = [];
    const c = new TextCoalescer(30, (threadId, event) => sent.push({ threadId, event }));
    c.push('a', text('He'));
    expect(sent.map((s) => s.event)).toEqual([text('He')]);
    c.push('a', text('l'));
    c.push('a', text('lo'));
    c.push('b', text('other thread'));
    expect(sent.map((s) => s.event)).toEqual([text('He'), text('other thread')]);
    // Another source's text, then a tool call: each sends what is held first.
    c.push('a', text('sub', 'task-1'));
    c.push('a', { type: 'tool_call', threadId: 'a', id: 'c1', name: 'ls', args: {} });
    expect(sent.filter((s) => s.threadId === 'a').map((s) => s.event)).toEqual([text('He'), text('llo'), text('sub', 'task-1'), { type: 'tool_call', threadId: 'a', id: 'c1', name: 'ls', args: {} }]);
    c.push('a', text(' wor'));
    c.push('a', text('ld'));
    await sleep(120);
    expect(sent.filter((s) => s.threadId === 'a').map((s) => s.event).slice(4)).toEqual([text(' world')]);
    expect(sent.filter((s) => s.threadId === 'a').map((s) => (s.event.type === 'text' ? s.event.text : '')).join('')).toBe('Hellosub world');
    // A quiet thread sends its next delta at once again.
    const before = sent.length;
    c.push('a', text('!'));
    expect(sent.length).toBe(before + 1);
    c.forget('a');
    c.forget('b');
  });

  it('flush sends what is held now; forget drops it', () => {
    const sent: AgentEvent[] = [];
    const c = new TextCoalescer(10_000, (_t, event) => sent.push(event));
    c.push('a', text('x'));
    c.push('a', text('y'));
    c.push('a', text('z'));
    expect(sent).toEqual([text('x')]);
    c.flush('a');
    expect(sent).toEqual([text('x'), text('yz')]);
    c.push('a', text('gone'));
    c.forget('a');
    c.flush('a');
    expect(sent).toEqual([text('x'), text('yz')]);
  });
});
