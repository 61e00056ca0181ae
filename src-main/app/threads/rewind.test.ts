// Rewinding a thread's state to before a message, and putting it back.

import { describe, expect, it } from 'vitest';
import { noteMessage } from '../../core/agent/notes';
import { newThreadState, type ThreadState } from '../../core/agent/types';
import type { ChatMessage } from '../../core/models/types';
import { cutConversation, putBackConversation } from './rewind';

const todos = (id: string, content: string): ChatMessage[] => [
  { role: 'assistant', content: '', toolCalls: [{ id, name: 'write_todos', args: { todos: [{ content, status: 'in_progress' }] }, argsText: '' }] },
  { role: 'tool', toolCallId: id, toolName: 'write_todos', content: 'Updated todo list' },
];

function thread(): ThreadState {
  const state = newThreadState('t');
  state.messages = [
    { role: 'user', content: 'first' },
    ...todos('a', 'plan one'),
    { role: 'assistant', content: 'done one' },
    { role: 'user', content: 'second' },
    ...todos('b', 'plan two'),
    { role: 'assistant', content: '', toolCalls: [{ id: 'task1', name: 'task', args: {}, argsText: '{}' }] },
    { role: 'tool', toolCallId: 'task1', toolName: 'task', content: 'sub done' },
    { role: 'assistant', content: 'done two' },
  ];
  state.todos = [{ content: 'plan two', status: 'in_progress' }];
  state.subagentRuns = { task1: [{ role: 'user', content: 'sub' }] };
  return state;
}

describe('rewinding a conversation', () => {
  it('takes the message and what follows out, with the todos and subagent runs of that part', () => {
    const state = thread();
    const before = structuredClone(state);
    const part = cutConversation(state, 4);
    expect(state.messages.map((m) => m.content)).toEqual(['first', '', 'Updated todo list', 'done one']);
    expect(state.todos).toEqual([{ content: 'plan one', status: 'in_progress' }]);
    expect(state.subagentRuns).toEqual({});
    expect(part.messages[0]).toEqual({ role: 'user', content: 'second' });

    state.messages.push(noteMessage({ id: 'n1', kind: 'restore', text: '<system-reminder>x</system-reminder>', display: 'x', createdAt: '' }));
    expect(putBackConversation(state, part)).toBe(true);
    expect(state.messages.slice(0, -1)).toEqual(before.messages);
    expect(state.messages.at(-1)).toMatchObject({ note: { id: 'n1' } });
    expect(state.todos).toEqual(before.todos);
    expect(state.subagentRuns).toEqual(before.subagentRuns);
  });

  it('drops a summary that stood for messages that are gone, and keeps one that did not', () => {
    const state = thread();
    state.summary = 'summary of 0..6';
    state.contextStart = 6;
    state.compactedBefore = 6;
    state.mediaDroppedBefore = 6;
    const part = cutConversation(state, 4);
    expect(state.summary).toBeUndefined();
    expect(state.contextStart).toBe(0);
    expect(state.compactedBefore).toBeUndefined();
    expect(state.mediaDroppedBefore).toBeUndefined();
    expect(putBackConversation(state, part)).toBe(true);
    expect(state).toMatchObject({ summary: 'summary of 0..6', contextStart: 6, compactedBefore: 6, mediaDroppedBefore: 6 });

    const kept = thread();
    kept.summary = 'summary of 0..2';
    kept.contextStart = 2;
    kept.compactedBefore = 8;
    kept.mediaDroppedBefore = 7;
    cutConversation(kept, 4);
    // Messages that come after the cut are new: their media reach the model.
    expect(kept).toMatchObject({ summary: 'summary of 0..2', contextStart: 2, compactedBefore: 4, mediaDroppedBefore: 4 });
  });

  it('is not put back once the person went on', () => {
    const state = thread();
    const part = cutConversation(state, 4);
    state.messages.push({ role: 'user', content: 'something else' });
    expect(putBackConversation(state, part)).toBe(false);
    expect(state.messages.at(-1)).toEqual({ role: 'user', content: 'something else' });
  });
});
