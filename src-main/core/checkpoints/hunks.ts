// Per-hunk review (SPEC §24): a thread's net change of one file cut into hunks, who wrote the
// lines of each (line-authors.ts, from the folder's checkpoint log), and the file with one hunk
// put back as it was, byte for byte (its line ends and mode kept), around what others changed since.

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

/**
 * `current` with hunks `hs` of `before` → `after` put back as `before` had them, a three-way
 * revert: what others changed since (`after` → `current`) stays, wherever the hunks' lines moved.
 * When another change touches a hunk's lines or the line next to them, nothing is put back:
 * the answer is that hunk (a revert would take their lines too).
 */
export function revertHunks(hs: readonly TextHunk[], before: Buffer, after: Buffer, current: Buffer): { content: Buffer } | { clash: TextHunk } {
  const was = rawLines(before);
  const now = rawLines(after);
  const cur = rawLines(current);
  // Edits of `now`: replace `drop` lines from `at` with `put`.
  const theirs = changeHunks(after.toString('latin1'), current.toString('latin1')).map((t) => ({ at: t.oldStart - 1, drop: t.oldLines, put: cur.slice(t.newStart - 1, t.newStart - 1 + t.newLines) }));
  const edits = [...theirs];
  for (const h of hs) {
    const at = h.newStart - 1;
    const end = at + h.newLines;
    const touches = theirs.some((e) => (e.drop === 0 ? e.at >= at && e.at <= end : e.at < end + 1 && e.at + e.drop > at - 1));
    if (touches) return { clash: h };
    edits.push({ at, drop: h.newLines, put: was.slice(h.oldStart - 1, h.oldStart - 1 + h.oldLines) });
  }
  edits.sort((a, b) => a.at - b.at || a.drop - b.drop);
  const out: Buffer[] = [];
  let i = 0;
  for (const e of edits) {
    out.push(...now.slice(i, e.at), ...e.put);
    i = e.at + e.drop;
  }
  out.push(...now.slice(i));
  return { content: Buffer.concat(out) };
}

/** Where a hunk's lines are as the change left them, for the person: `line 3`, `lines 3–5`. */
export function hunkLines(h: TextHunk): string {
  return h.newLines <= 1 ? `line ${h.newStart}` : `lines ${h.newStart}–${h.newStart + h.newLines - 1}`;
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
