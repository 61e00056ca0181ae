import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FilesystemBackend } from '../backends/filesystem/filesystem';
import { editFileTool } from './edit-file';
import { describeChange, MAX_DIFF_LINES } from './file-change';
import { readFileTool } from './read-file';
import { ReadGuard } from './read-guard';
import { writeFileTool } from './write-file';

const file = (text: string) => ({ exists: true as const, text });
const lines = (n: number, edit?: number) => Array.from({ length: n }, (_, i) => (i + 1 === edit ? `line ${i + 1} changed` : `line ${i + 1}`)).join('\n') + '\n';

describe('describeChange', () => {
  it('an edit in the middle of a file: its real line numbers and three lines of context', () => {
    const change = describeChange('/calc.py', file(lines(60)), file(lines(60, 42)))!;
    expect(change).toMatchObject({ path: '/calc.py', created: false, added: 1, removed: 1 });
    expect(change.hunks).toEqual([
      { oldStart: 39, oldLines: 7, newStart: 39, newLines: 7, lines: [' line 39', ' line 40', ' line 41', '-line 42', '+line 42 changed', ' line 43', ' line 44', ' line 45'] },
    ]);
  });

  it('a new file is created, all added; an existing empty file is not created', () => {
    expect(describeChange('/new.txt', { exists: false }, file('a\nb\n'))).toMatchObject({ created: true, added: 2, removed: 0 });
    expect(describeChange('/empty.txt', file(''), file('a\n'))).toMatchObject({ created: false, added: 1 });
    expect(describeChange('/gone.txt', file('a'), { exists: false })).toBeNull();
  });

  it('line endings make no diff; a file too large to read is told, not diffed', () => {
    expect(describeChange('/crlf.txt', file('a\r\nb\r\n'), file('a\nb\n'))!.hunks).toEqual([]);
    expect(describeChange('/big.bin', { exists: true, text: null }, file('x'))).toEqual({ path: '/big.bin', created: false, hunks: [], added: 0, removed: 0, truncated: true });
  });

  it('keeps at most MAX_DIFF_LINES lines of hunks, counting every change', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: 3000 }, (_, i) => (i % 10 === 0 ? `new ${i}` : `old ${i}`)).join('\n');
    const change = describeChange('/many.txt', file(before), file(after))!;
    expect(change.truncated).toBe(true);
    expect(change.added).toBe(300);
    expect(change.hunks.reduce((n, h) => n + h.lines.length, 0)).toBeLessThanOrEqual(MAX_DIFF_LINES);
  });
});

describe('write_file and edit_file record what they did', () => {
  it('a created file, then an edit with its real line numbers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-change-'));
    try {
      const ctx = { backend: new FilesystemBackend({ rootDir: dir }), guard: new ReadGuard(), toolCallId: 'c' };
      const created = await writeFileTool.run({ file_path: '/calc.py', content: lines(20) }, ctx);
      expect(created.text).toBe('Updated file /calc.py');
      expect(created.change).toMatchObject({ path: '/calc.py', created: true, added: 20, removed: 0 });
      await readFileTool.run({ file_path: '/calc.py' }, ctx);
      const edited = await editFileTool.run({ file_path: '/calc.py', old_string: 'line 12\n', new_string: 'line 12 changed\n' }, ctx);
      expect(edited.change).toMatchObject({ created: false, added: 1, removed: 1 });
      expect(edited.change!.hunks[0]).toMatchObject({ oldStart: 9, newStart: 9, lines: [' line 9', ' line 10', ' line 11', '-line 12', '+line 12 changed', ' line 13', ' line 14', ' line 15'] });
      const overwritten = await writeFileTool.run({ file_path: '/calc.py', content: 'x\n' }, ctx);
      expect(overwritten.change).toMatchObject({ created: false, added: 1, removed: 20 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
