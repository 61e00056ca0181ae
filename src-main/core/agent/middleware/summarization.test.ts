import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../models/types';
import { archivePathFor, chooseCut, renderMessage } from './summarization';

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
