import { describe, it, expect } from 'vitest';
import { commandOf, offloadedPath, previewLines, summarizeArgs } from './tool-summary';

describe('tool summaries', () => {
  it('summarizes arguments per tool', () => {
    expect(summarizeArgs('read_file', { file_path: '/src/a.ts', offset: 3 })).toBe('/src/a.ts');
    expect(summarizeArgs('ls', { path: '/src' })).toBe('/src');
    expect(summarizeArgs('execute', { command: 'npm test\nnpm run lint' })).toBe('npm test …');
    expect(summarizeArgs('grep', { pattern: 'TODO', path: '/src' })).toBe('"TODO" in /src');
    expect(summarizeArgs('glob', { pattern: '**/*.ts' })).toBe('**/*.ts');
    expect(summarizeArgs('task', { subagent_type: 'general-purpose', description: 'Find bugs' })).toBe('general-purpose: Find bugs');
    expect(summarizeArgs('write_todos', { todos: [{}, {}] })).toBe('2 items');
    expect(summarizeArgs('custom', { a: 1 })).toBe('{"a":1}');
    expect(summarizeArgs('custom', undefined)).toBe('');
    expect(summarizeArgs('read_file', 'garbage')).toBe('');
  });

  it('reads the command of an execute call', () => {
    expect(commandOf({ command: 'ls -la' })).toBe('ls -la');
    expect(commandOf({})).toBeNull();
  });

  it('finds where a result was offloaded', () => {
    expect(offloadedPath('anything', '/large_tool_results/x')).toBe('/large_tool_results/x');
    expect(offloadedPath('Tool result too large, saved to /large_tool_results/call_1.\nRead it with read_file')).toBe('/large_tool_results/call_1');
    expect(offloadedPath("saved at '/large_tool_results/abc_def' now")).toBe('/large_tool_results/abc_def');
    expect(offloadedPath('plain output')).toBeNull();
    expect(offloadedPath(undefined)).toBeNull();
  });

  it('previews the first lines', () => {
    expect(previewLines('a\nb\nc', 2)).toEqual({ text: 'a\nb', hidden: 1 });
    expect(previewLines('a', 2)).toEqual({ text: 'a', hidden: 0 });
  });
});
