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

it('a command card holds that command’s output: its terminal’s, or its result’s text, never a placeholder', () => {
  const events: AgentEventBody[] = [];
  const printed: Record<string, string> = { term_1: 'from-one\n', term_2: 'from-two\n' };
  const t = Object.assign(turn(events), { terminalOutput: (id: string) => printed[id] });
  const result = () => events.filter((e) => e.type === 'tool_result').at(-1);
  // Claude Code's Bash: the terminal told while it runs, its end carrying only the tool's result.
  translate(t, { sessionUpdate: 'tool_call', toolCallId: 'b1', title: '`echo one`', kind: 'execute', status: 'pending', rawInput: { command: 'echo one' } });
  translate(t, { sessionUpdate: 'tool_call', toolCallId: 'b2', title: '`echo two`', kind: 'execute', status: 'pending', rawInput: { command: 'echo two' } });
  translate(t, { sessionUpdate: 'tool_call_update', toolCallId: 'b2', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term_2' }] });
  translate(t, { sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term_1' }] });
  translate(t, { sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'completed', rawOutput: [{ type: 'text', text: 'one\n' }] });
  expect(result()).toMatchObject({ output: 'one' });
  translate(t, { sessionUpdate: 'tool_call_update', toolCallId: 'b2', status: 'completed' });
  expect(result()).toMatchObject({ output: 'from-two' });
  // An end that names its terminal: that terminal's output.
  translate(t, { sessionUpdate: 'tool_call', toolCallId: 'b3', title: 'run', kind: 'execute', status: 'pending', rawInput: { command: 'echo three' } });
  translate(t, { sessionUpdate: 'tool_call_update', toolCallId: 'b3', status: 'completed', content: [{ type: 'terminal', terminalId: 'term_1' }] });
  expect(result()).toMatchObject({ output: 'from-one' });
});
