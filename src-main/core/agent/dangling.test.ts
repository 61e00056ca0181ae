import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../models/types';
import { INTERRUPTED_RESULT, repairDanglingToolCalls, unresolvedToolCalls } from './dangling';

const call = (id: string, name = 'execute') => ({ id, name, args: {}, argsText: '{}' });
const result = (id: string, content = 'ok'): ChatMessage => ({ role: 'tool', toolCallId: id, toolName: 'execute', content });

describe('dangling tool calls', () => {
  it('adds an interrupted result right after the answered results of the same turn', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      result('a'),
      { role: 'user', content: 'next' },
    ];
    const repaired = repairDanglingToolCalls(messages);
    expect(repaired.map((m) => (m.role === 'tool' ? `tool:${m.toolCallId}` : m.role))).toEqual(['user', 'assistant', 'tool:a', 'tool:b', 'user']);
    expect(repaired[3]).toMatchObject({ content: INTERRUPTED_RESULT, isError: true });
    expect(messages).toHaveLength(4);
  });

  it('returns the same array when nothing dangles', () => {
    const messages: ChatMessage[] = [{ role: 'assistant', content: '', toolCalls: [call('a')] }, result('a'), { role: 'assistant', content: 'done' }];
    expect(repairDanglingToolCalls(messages)).toBe(messages);
  });

  it('finds the unanswered calls of the last assistant turn', () => {
    const messages: ChatMessage[] = [{ role: 'assistant', content: '', toolCalls: [call('a'), call('b'), call('c')] }, result('b')];
    expect(unresolvedToolCalls(messages).map((c) => c.id)).toEqual(['a', 'c']);
    expect(unresolvedToolCalls([...messages, result('a'), result('c')])).toEqual([]);
  });
});
