import { describe, expect, it } from 'vitest';
import { newThreadState } from '../../core/agent/types';
import { displayItems } from './display-items';

describe('displayItems', () => {
  it('pairs calls with results, nests subagent work under its task call, and marks offloaded results', () => {
    const state = newThreadState('t');
    state.messages.push(
      { role: 'user', content: 'do it' },
      { role: 'assistant', content: 'On it.', toolCalls: [{ id: 'task1', name: 'task', args: { description: 'sub job' }, argsText: '{}' }, { id: 'x', name: 'execute', args: { command: 'seq 1 99999' }, argsText: '{}' }] },
      { role: 'tool', toolCallId: 'task1', toolName: 'task', content: 'sub done' },
      { role: 'tool', toolCallId: 'x', toolName: 'execute', content: 'The tool result was too large to include (1 characters, 1 lines), so it was saved to /large_tool_results/x.\nRead it…', isError: false },
      { role: 'assistant', content: 'Finished.' },
    );
    state.subagentRuns = {
      task1: [
        { role: 'user', content: 'sub job' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'ls', args: {}, argsText: '{}' }] },
        { role: 'tool', toolCallId: 'x', toolName: 'ls', content: 'No files found', gist: { kind: 'ls', entries: 0 } },
        { role: 'assistant', content: 'sub done' },
      ],
    };
    const items = displayItems(state);
    expect(items.map((i) => `${i.kind}${'parentToolCallId' in i && i.parentToolCallId ? `@${i.parentToolCallId}` : ''}`)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'tool@task1',
      'assistant@task1',
      'assistant',
    ]);
    expect(items[2]).toMatchObject({ kind: 'tool', id: 'task1', output: 'sub done' });
    expect(items[3]).toMatchObject({ kind: 'tool', id: 'x', name: 'execute', evictedTo: '/large_tool_results/x' });
    expect(items[4]).toMatchObject({ kind: 'tool', id: 'x', name: 'ls', output: 'No files found', parentToolCallId: 'task1', gist: { kind: 'ls', entries: 0 } });
  });
});
