// Turns a file's before/after text into rows for the approval dialog's diff view.

import { structuredPatch } from 'diff';
import type { FileChangeDto } from '../../../src-main/app/contract';

export type DiffRow =
  | { type: 'hunk'; text: string }
  | { type: 'add' | 'del' | 'ctx'; text: string; oldNo?: number; newNo?: number };

export interface DiffResult {
  rows: DiffRow[];
  added: number;
  removed: number;
}

export function diffRows(before: string, after: string, context = 3): DiffResult {
  const patch = structuredPatch('before', 'after', before, after, '', '', { context });
  return rowsFromHunks(patch.hunks);
}

export type Hunk = FileChangeDto['hunks'][number];

/** Rows for hunks kept from elsewhere (a write's recorded change), with their real line numbers. */
export function rowsFromHunks(hunks: readonly Hunk[]): DiffResult {
  const rows: DiffRow[] = [];
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    rows.push({ type: 'hunk', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === '+') {
        rows.push({ type: 'add', text, newNo: newNo++ });
        added++;
      } else if (mark === '-') {
        rows.push({ type: 'del', text, oldNo: oldNo++ });
        removed++;
      } else if (mark === ' ') {
        rows.push({ type: 'ctx', text, oldNo: oldNo++, newNo: newNo++ });
      }
      // '\' lines ("No newline at end of file") carry no content.
    }
  }
  return { rows, added, removed };
}
