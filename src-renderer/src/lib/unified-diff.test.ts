import { describe, expect, it } from 'vitest';
import { rowsFromHunks } from './diff-rows';
import { parseUnifiedDiff, unquote } from './unified-diff';

// What `git diff` printed for a modified, a binary, a new (quoted), a deleted and a file without a final newline.
const DIFF = [
  'diff --git a/a.txt b/a.txt',
  'index 4cb29ea..c212f03 100644',
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -1,3 +1,4 @@',
  ' one',
  '-two',
  '+TWO',
  ' three',
  '+-- not a header',
  'diff --git a/bin.dat b/bin.dat',
  'index bdc955b..8835708 100644',
  'Binary files a/bin.dat and b/bin.dat differ',
  'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"',
  'new file mode 100644',
  'index 0000000..3e75765',
  '--- /dev/null',
  '+++ "b/caf\\303\\251.txt"',
  '@@ -0,0 +1 @@',
  '+new',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  'index 286c5f5..0000000',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-gone',
  'diff --git a/nonl.txt b/nonl.txt',
  'new file mode 100644',
  'index 0000000..c1b0730',
  '--- /dev/null',
  '+++ b/nonl.txt',
  '@@ -0,0 +1 @@',
  '+x',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('parseUnifiedDiff', () => {
  it('cuts a git diff into files with their hunks, kinds and line counts', () => {
    const files = parseUnifiedDiff(DIFF);
    expect(files.map((f) => [f.path, f.created, f.deleted, f.binary, f.added, f.removed])).toEqual([
      ['a.txt', false, false, false, 3 - 1, 1],
      ['bin.dat', false, false, true, 0, 0],
      ['café.txt', true, false, false, 1, 0],
      ['gone.txt', false, true, false, 0, 1],
      ['nonl.txt', true, false, false, 1, 0],
    ]);
    // A removed or added line that looks like a header stays a line of its hunk.
    expect(files[0]!.hunks[0]!.lines).toEqual([' one', '-two', '+TWO', ' three', '+-- not a header']);
    expect(rowsFromHunks(files[0]!.hunks).rows.at(-1)).toEqual({ type: 'add', text: '-- not a header', newNo: 4 });
    expect(files[4]!.hunks[0]!.lines).toEqual(['+x', '\\ No newline at end of file']);
  });

  it('reads an empty context line (diff.suppressBlankEmpty) as context, and nothing as no files', () => {
    const files = parseUnifiedDiff(['diff --git a/x b/x', '--- a/x', '+++ b/x', '@@ -1,3 +1,3 @@', '', '-a', '+b', '', ''].join('\n'));
    expect(files[0]!.hunks[0]!.lines).toEqual([' ', '-a', '+b', ' ']);
    expect(parseUnifiedDiff('')).toEqual([]);
  });

  it('reads back git’s quoted paths', () => {
    expect(unquote('"b/caf\\303\\251 \\"x\\".txt"')).toBe('b/café "x".txt');
    expect(unquote('b/plain.txt')).toBe('b/plain.txt');
  });
});
