import { describe, it, expect } from 'vitest';
import { diffRows, rowsFromHunks } from './diff-rows';

describe('diffRows', () => {
  it('numbers added, removed and context lines', () => {
    const { rows, added, removed } = diffRows('a\nb\nc\n', 'a\nB\nc\nd\n');
    expect(added).toBe(2);
    expect(removed).toBe(1);
    expect(rows[0]).toEqual({ type: 'hunk', text: '@@ -1,3 +1,4 @@' });
    expect(rows.slice(1)).toEqual([
      { type: 'ctx', text: 'a', oldNo: 1, newNo: 1 },
      { type: 'del', text: 'b', oldNo: 2 },
      { type: 'add', text: 'B', newNo: 2 },
      { type: 'ctx', text: 'c', oldNo: 3, newNo: 3 },
      { type: 'add', text: 'd', newNo: 4 },
    ]);
  });

  it('shows a new file as all additions', () => {
    const { rows, added } = diffRows('', 'x\ny');
    expect(added).toBe(2);
    expect(rows.filter((r) => r.type === 'add').map((r) => r.text)).toEqual(['x', 'y']);
  });

  it('is empty for identical text', () => {
    expect(diffRows('same', 'same').rows).toEqual([]);
  });

  it('numbers kept hunks from where they stand in the file', () => {
    const { rows, added, removed } = rowsFromHunks([{ oldStart: 40, oldLines: 3, newStart: 41, newLines: 3, lines: [' a', '-b', '+B', ' c', '\\ No newline at end of file'] }]);
    expect([added, removed]).toEqual([1, 1]);
    expect(rows).toEqual([
      { type: 'hunk', text: '@@ -40,3 +41,3 @@' },
      { type: 'ctx', text: 'a', oldNo: 40, newNo: 41 },
      { type: 'del', text: 'b', oldNo: 41 },
      { type: 'add', text: 'B', newNo: 42 },
      { type: 'ctx', text: 'c', oldNo: 42, newNo: 43 },
    ]);
  });
});
