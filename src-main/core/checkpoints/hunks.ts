// Per-hunk review (SPEC §24): a thread's net change of one file cut into hunks, who wrote the
// lines of each (line-authors.ts, from the folder's checkpoint log), and the file with one hunk
// put back as it was, byte for byte (its line ends and mode kept).

import { createHash } from 'node:crypto';
import { changeHunks, type TextHunk } from '../text/unified-diff';
import type { LineAuthor } from './line-authors';

/** Who wrote a hunk's lines: a thread's agent (its model, another agent's name), the person, or nobody known. */
export type HunkAuthor = Omit<LineAuthor, 'line'>;

export interface ReviewHunk extends TextHunk {
  /** The same for the same change of the same file, wherever it moves (a Reviewed mark follows it). */
  id: string;
  /** Who wrote its added lines (a hunk that only removes lines: `removedBy`); each once. */
  authors: HunkAuthor[];
}

/** The hunks of `first` → `last`, each with who wrote its lines (`authors`: lineAuthors of `last`). */
export function reviewHunks(path: string, first: string, last: string, authors: readonly LineAuthor[], removedBy: HunkAuthor): ReviewHunk[] {
  return changeHunks(first, last).map((h) => {
    const written = authors.slice(h.newStart - 1, h.newStart - 1 + h.newLines).map(({ line: _line, ...a }) => a);
    return { ...h, id: hunkId(path, h), authors: distinct(written.length > 0 ? written : [removedBy]) };
  });
}

/** `current` with hunk `h` of `before` → `after` put back as `before` had it; null when the hunk's lines (and one line each side) are no longer where the change left them. */
export function withHunkReverted(h: TextHunk, before: Buffer, after: Buffer, current: Buffer): Buffer | null {
  const was = rawLines(before);
  const now = rawLines(after);
  const cur = rawLines(current);
  const at = h.newStart - 1;
  for (let k = Math.max(0, at - 1); k < Math.min(now.length, at + h.newLines + 1); k++) {
    if (cur[k] === undefined || !cur[k]!.equals(now[k]!)) return null;
  }
  return Buffer.concat([...cur.slice(0, at), ...was.slice(h.oldStart - 1, h.oldStart - 1 + h.oldLines), ...cur.slice(at + h.newLines)]);
}

function hunkId(path: string, h: TextHunk): string {
  return createHash('sha256').update(`${path}\0${h.lines.join('\n')}`).digest('hex').slice(0, 16);
}

/** The bytes of each line, its end ('\n', '\r\n') included. */
function rawLines(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10, start)) {
    out.push(data.subarray(start, nl + 1));
    start = nl + 1;
  }
  if (start < data.length) out.push(data.subarray(start));
  return out;
}

function distinct(authors: readonly HunkAuthor[]): HunkAuthor[] {
  const seen = new Map<string, HunkAuthor>();
  for (const a of authors) seen.set(`${a.kind}\0${a.thread ?? ''}\0${a.model ?? ''}\0${a.agent ?? ''}`, a);
  return [...seen.values()];
}
