// How tool calls look in an ACP editor: kinds, real locations (on the person's mounts by the
// longest prefix, never for Deepdesk's own mounts or a `..` path), diffs from the arguments
// and from the recorded change.
import { describe, expect, it } from 'vitest';
import { replayUpdates } from './session-updates';
import { realPathOf, type EditorMount, type EditorPaths } from '../../../core/backends/mounts/real-paths';
import { toolDiff, toolKind, toolLocations } from './tool-calls';

const folder = '/home/p/project';
const paths: EditorPaths = { folder, mounts: () => [] };

describe('ACP tool calls', () => {
  it('gives each tool its kind; unknown and model-made names are other', () => {
    expect(['read_file', 'grep', 'edit_file', 'execute', 'write_todos'].map(toolKind)).toEqual(['read', 'search', 'edit', 'execute', 'think']);
    expect(toolKind('mcp__github__search')).toBe('other');
    expect(toolKind('__proto__')).toBe('other');
    expect(toolKind('toString')).toBe('other');
  });

  it('locates folder paths as real absolute paths, and nothing in Deepdesk’s own mounts', () => {
    expect(toolLocations(paths, 'read_file', { file_path: '/src/a.ts', offset: 10 })).toEqual([{ path: '/home/p/project/src/a.ts', line: 11 }]);
    expect(toolLocations(paths, 'grep', { pattern: 'x' })).toEqual([{ path: folder }]);
    expect(toolLocations(paths, 'read_file', { file_path: '/memories/AGENTS.md' })).toEqual([]);
    expect(toolLocations(paths, 'read_file', { file_path: '/large_tool_results/x' })).toEqual([]);
    expect(toolLocations(paths, 'read_file', { file_path: '/../etc/passwd' })).toEqual([]);
    expect(toolLocations(paths, 'execute', { command: 'ls' })).toEqual([]);
  });

  it('diffs an edit from its arguments, and from the recorded hunks once it ran', () => {
    expect(toolDiff(paths, 'edit_file', { file_path: '/a.txt', old_string: 'two', new_string: 'TWO' })).toEqual([
      { type: 'diff', path: '/home/p/project/a.txt', oldText: 'two', newText: 'TWO' },
    ]);
    expect(toolDiff(paths, 'write_file', { file_path: '/n.txt', content: 'new\n' })).toEqual([{ type: 'diff', path: '/home/p/project/n.txt', oldText: null, newText: 'new\n' }]);
    const change = { path: '/a.txt', created: false, added: 1, removed: 1, hunks: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' one', '-two', '+TWO'] }] };
    expect(toolDiff(paths, 'edit_file', { file_path: '/a.txt', old_string: 'two', new_string: 'TWO' }, change)).toEqual([
      { type: 'diff', path: '/home/p/project/a.txt', oldText: 'one\ntwo', newText: 'one\nTWO' },
    ]);
    expect(toolDiff(paths, 'read_file', { file_path: '/a.txt' })).toEqual([]);
  });

  it('routes a path on a mount to that mount’s real folder by the longest prefix, like the composite', () => {
    let mounts: EditorMount[] = [
      { prefix: '/docs/', root: '/srv/docs' },
      { prefix: '/docs/api/', root: '/srv/api-docs' },
      { prefix: '/repo/', root: '/data/mounts/repo-1234/work' },
      { prefix: '/pending/', root: undefined },
    ];
    const mounted: EditorPaths = { folder, mounts: () => mounts };
    expect(realPathOf(mounted, '/docs/a.md')).toBe('/srv/docs/a.md');
    expect(realPathOf(mounted, '/docs/api/v1/b.md')).toBe('/srv/api-docs/v1/b.md');
    // A path equal to the mount folder is its folder (with or without the slash); a sibling name is not on it.
    expect(realPathOf(mounted, '/docs')).toBe('/srv/docs');
    expect(realPathOf(mounted, '/docs/api/')).toBe('/srv/api-docs');
    expect(realPathOf(mounted, '/docsx/c.md')).toBe('/home/p/project/docsx/c.md');
    // A git mount's paths are in its clone's work tree; one not cloned yet has none.
    expect(realPathOf(mounted, '/repo/src/x.ts')).toBe('/data/mounts/repo-1234/work/src/x.ts');
    expect(realPathOf(mounted, '/pending/x')).toBeUndefined();
    // Deepdesk's own mounts stay nowhere on disk; everything else is the project folder.
    expect(realPathOf(mounted, '/memories/AGENTS.md')).toBeUndefined();
    expect(realPathOf(mounted, '/skills')).toBeUndefined();
    expect(realPathOf(mounted, '/src/a.ts')).toBe('/home/p/project/src/a.ts');
    expect(realPathOf(mounted, '/')).toBe(folder);
    expect(realPathOf(mounted, '/docs/../etc/passwd')).toBeUndefined();

    expect(toolLocations(mounted, 'read_file', { file_path: '/docs/api/ref.md', offset: 4 })).toEqual([{ path: '/srv/api-docs/ref.md', line: 5 }]);
    expect(toolLocations(mounted, 'ls', { path: '/docs' })).toEqual([{ path: '/srv/docs' }]);
    expect(toolLocations(mounted, 'grep', { pattern: 'x', path: '/repo/' })).toEqual([{ path: '/data/mounts/repo-1234/work' }]);
    expect(toolDiff(mounted, 'write_file', { file_path: '/docs/n.md', content: 'hi' })).toEqual([{ type: 'diff', path: '/srv/docs/n.md', oldText: null, newText: 'hi' }]);
    expect(toolDiff(mounted, 'edit_file', { file_path: '/repo/r.txt', old_string: 'a', new_string: 'b' })).toEqual([
      { type: 'diff', path: '/data/mounts/repo-1234/work/r.txt', oldText: 'a', newText: 'b' },
    ]);
    // No diff at all where there is no real path: the editor gets no path it could take for one in the folder.
    expect(toolDiff(mounted, 'write_file', { file_path: '/memories/n.md', content: 'hi' })).toEqual([]);
    expect(toolDiff(mounted, 'write_file', { file_path: '/pending/n.md', content: 'hi' })).toEqual([]);
    expect(toolLocations(mounted, 'read_file', { file_path: '/large_tool_results/x' })).toEqual([]);

    // The mounts are read on every call: one removed routes to the folder again.
    mounts = mounts.filter((m) => m.prefix !== '/docs/api/');
    expect(realPathOf(mounted, '/docs/api/v1/b.md')).toBe('/srv/docs/api/v1/b.md');
    mounts = [];
    expect(realPathOf(mounted, '/docs/a.md')).toBe('/home/p/project/docs/a.md');
  });

  it('replays a thread: the person’s words, the answer, each call with its final status, the plan', () => {
    const updates = replayUpdates(
      paths,
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
