// A unified diff's hunks of two texts, as diff(1) and git write them: `deepdesk checkpoints
// diff` and the diff a terminal shows with an approval of an edit or a write.

import { structuredPatch } from 'diff';

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
