// Another agent's calls as the thread's cards (SPEC §22): a call is named by what it works on, as
// the agent told it, not by a generic "Edit a file".
import { expect, it } from 'vitest';
import { newThreadState, type AgentEventBody } from '../../core/agent/types';
import { newTurn, translate } from './agent-turn';

function turn(events: AgentEventBody[]) {
  return newTurn({
    name: 'codex',
    label: 'Codex',
    folder: '/work/project',
    state: newThreadState('t'),
    signal: new AbortController().signal,
    answering: { broker: undefined as never, decided: () => ({ mode: 'ask', rules: [] }), observer: () => undefined },
    emit: (event) => events.push(event),
    persist: () => undefined,
  });
}

it('an edit whose input names no file (Codex’s patch) is named by its location, in the folder’s terms', () => {
  const events: AgentEventBody[] = [];
  const t = turn(events);
  translate(t, { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Edit a.txt', kind: 'edit', status: 'pending', locations: [{ path: '/work/project/src/a.txt' }], rawInput: { changes: { '/work/project/src/a.txt': {} } } });
  expect(events.at(-1)).toMatchObject({ type: 'tool_call', name: 'edit_file', args: { file_path: '/src/a.txt', title: 'Edit a.txt' } });
  // Told later, as Codex tells them with its update: the card follows.
  translate(t, { sessionUpdate: 'tool_call', toolCallId: 'c2', title: 'Edit', kind: 'edit', status: 'pending' });
  translate(t, { sessionUpdate: 'tool_call_update', toolCallId: 'c2', locations: [{ path: '/work/project/b.txt' }] });
  expect(events.at(-1)).toMatchObject({ type: 'tool_call', name: 'edit_file', args: { file_path: '/b.txt' } });
  // A path its input names itself is kept.
  translate(t, { sessionUpdate: 'tool_call', toolCallId: 'c3', title: 'Read', kind: 'read', status: 'pending', locations: [{ path: '/work/project/x' }], rawInput: { file_path: '/work/project/y' } });
  expect(events.at(-1)).toMatchObject({ args: { file_path: '/work/project/y' } });
});
