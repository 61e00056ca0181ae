// A unified diff's hunks of two texts, as diff(1) and git write them: `deepdesk checkpoints
// diff` and the diff a terminal shows with an approval of an edit or a write; and the bare
// hunks (no context) that per-hunk review and line counts are made of.

import { structuredPatch } from 'diff';

/** A hunk: where it starts in each version (1-based; an empty side's start is where it would be) and its '-' and '+' lines. */
export interface TextHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** ' ' context, '-' removed, '+' added; '\' notes a last line without a newline. Line ends other than '\n' stay in the text ('\r'). */
  lines: string[];
}

/** The hunks of the change from `before` to `after`, with no context lines. */
export function changeHunks(before: string, after: string): TextHunk[] {
  return structuredPatch('a', 'b', before, after, '', '', { context: 0 }).hunks;
}

/** The `@@` lines and their context, removed and added lines (3 lines of context). */
export function unifiedHunks(before: string, after: string): string[] {
  const lines: string[] = [];
  for (const h of structuredPatch('a', 'b', before, after, '', '', { context: 3 }).hunks) {
    // As diff(1) and git write it: an empty side starts at line 0.
    lines.push(`@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart},${h.oldLines} +${h.newLines === 0 ? h.newStart - 1 : h.newStart},${h.newLines} @@`);
    lines.push(...h.lines);
  }
  return lines;
}
