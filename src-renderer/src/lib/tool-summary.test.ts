import { describe, it, expect } from 'vitest';
import { commandOf, offloadedPath, oneLine, previewLines, summarizeArgs, tailLines, toolCardName } from './tool-summary';

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

  it('names a card by tool, target and status', () => {
    expect(toolCardName('execute', { command: 'npm test' }, 'Failed · exit 1')).toBe('execute npm test — Failed · exit 1');
    expect(toolCardName('write_file', { file_path: '/notes.txt', content: 'x' }, 'Done')).toBe('write_file /notes.txt — Done');
    expect(toolCardName('custom', undefined, 'Running')).toBe('custom — Running');
    expect(toolCardName('execute', { command: 'ls \u202Etxt.exe' }, 'Done')).toBe('execute ls ⟨U+202E⟩txt.exe — Done');
    expect(toolCardName('execute', { command: 'x'.repeat(300) }, 'Done')).toHaveLength(`execute  — Done`.length + 100);
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

describe('one-line cards', () => {
  it('says what a read, grep, glob or ls did and what came back', () => {
    const read = Array.from({ length: 120 }, (_, i) => `${String(i + 1).padStart(6)}\tline ${i}`).join('\n');
    expect(oneLine('read_file', { file_path: '/README.md' }, read)).toBe('Read README.md · 120 lines');
    expect(oneLine('read_file', { file_path: '/a.ts' }, `${read}\n\n[Showing lines 1-100 of 500. Continue with offset=100.]`)).toBe('Read a.ts · lines 1–100 of 500');
    expect(oneLine('read_file', { file_path: '/x' }, "Error: File '/x' not found")).toBe("Read x · File '/x' not found");
    expect(oneLine('read_file', { file_path: '/a.ts' }, undefined)).toBe('Read a.ts');
    expect(oneLine('grep', { pattern: 'TODO' }, '/a.ts\n/b.ts\n/c.ts')).toBe('Searched for "TODO" · 3 files');
    expect(oneLine('grep', { pattern: 'x', output_mode: 'content', path: '/src' }, '/src/a.ts:\n  3: x = 1\n  9: x()\n/src/b.ts:\n  1: x')).toBe('Searched for "x" in src · 3 matches in 2 files');
    expect(oneLine('grep', { pattern: 'zz' }, 'No matches found')).toBe('Searched for "zz" · no matches');
    expect(oneLine('glob', { pattern: '**/*.ts' }, '/a.ts\n/b/c.ts')).toBe('Found **/*.ts · 2 files');
    expect(oneLine('ls', { path: '/' }, '/memories/ (directory)\n/a.ts (3 bytes)')).toBe('Listed the folder · 2 entries');
    expect(oneLine('ls', { path: '/src' }, '/src/a.ts (3 bytes)')).toBe('Listed src · 1 entry');
  });

  it('keeps the last lines of output, where errors are', () => {
    expect(tailLines('1\n2\n3\n4\n', 2)).toEqual({ text: '3\n4', hidden: 2 });
    expect(tailLines('only', 3)).toEqual({ text: 'only', hidden: 0 });
  });
});
