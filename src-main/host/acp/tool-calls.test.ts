// How tool calls look in an ACP editor: kinds, real locations (never for Deepdesk's own
// mounts or a `..` path), diffs from the arguments and from the recorded change.
import { describe, expect, it } from 'vitest';
import { replayUpdates } from './session-updates';
import { toolDiff, toolKind, toolLocations } from './tool-calls';

const folder = '/home/p/project';

describe('ACP tool calls', () => {
  it('gives each tool its kind; unknown and model-made names are other', () => {
    expect(['read_file', 'grep', 'edit_file', 'execute', 'write_todos'].map(toolKind)).toEqual(['read', 'search', 'edit', 'execute', 'think']);
    expect(toolKind('mcp__github__search')).toBe('other');
    expect(toolKind('__proto__')).toBe('other');
    expect(toolKind('toString')).toBe('other');
  });

  it('locates folder paths as real absolute paths, and nothing in Deepdesk’s own mounts', () => {
    expect(toolLocations(folder, 'read_file', { file_path: '/src/a.ts', offset: 10 })).toEqual([{ path: '/home/p/project/src/a.ts', line: 11 }]);
    expect(toolLocations(folder, 'grep', { pattern: 'x' })).toEqual([{ path: folder }]);
    expect(toolLocations(folder, 'read_file', { file_path: '/memories/AGENTS.md' })).toEqual([]);
    expect(toolLocations(folder, 'read_file', { file_path: '/large_tool_results/x' })).toEqual([]);
    expect(toolLocations(folder, 'read_file', { file_path: '/../etc/passwd' })).toEqual([]);
    expect(toolLocations(folder, 'execute', { command: 'ls' })).toEqual([]);
  });

  it('diffs an edit from its arguments, and from the recorded hunks once it ran', () => {
    expect(toolDiff(folder, 'edit_file', { file_path: '/a.txt', old_string: 'two', new_string: 'TWO' })).toEqual([
      { type: 'diff', path: '/home/p/project/a.txt', oldText: 'two', newText: 'TWO' },
    ]);
    expect(toolDiff(folder, 'write_file', { file_path: '/n.txt', content: 'new\n' })).toEqual([{ type: 'diff', path: '/home/p/project/n.txt', oldText: null, newText: 'new\n' }]);
    const change = { path: '/a.txt', created: false, added: 1, removed: 1, hunks: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' one', '-two', '+TWO'] }] };
    expect(toolDiff(folder, 'edit_file', { file_path: '/a.txt', old_string: 'two', new_string: 'TWO' }, change)).toEqual([
      { type: 'diff', path: '/home/p/project/a.txt', oldText: 'one\ntwo', newText: 'one\nTWO' },
    ]);
    expect(toolDiff(folder, 'read_file', { file_path: '/a.txt' })).toEqual([]);
  });

  it('replays a thread: the person’s words, the answer, each call with its final status, the plan', () => {
    const updates = replayUpdates(
      folder,
      [
        { role: 'user', content: 'look' },
        { role: 'user', content: 'a note', note: { id: 'n', kind: 'restore', display: 'restored' } },
        { role: 'assistant', content: 'reading', toolCalls: [{ id: 'c1', name: 'read_file', args: { file_path: '/a' }, argsText: '' }, { id: 'c2', name: 'execute', args: { command: 'x' }, argsText: '' }] },
        { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'Error: File \'/a\' not found' },
      ],
      [{ content: 'step', status: 'pending' }],
    );
    expect(updates.map((u) => [u.sessionUpdate, 'status' in u ? u.status : undefined])).toEqual([
      ['user_message_chunk', undefined],
      ['agent_message_chunk', undefined],
      ['tool_call', 'pending'],
      ['tool_call', 'pending'],
      ['tool_call_update', 'failed'],
      ['tool_call_update', 'failed'],
      ['plan', undefined],
    ]);
  });
});
