// Per-hunk review (SPEC §24): a thread's net change of one file cut into hunks, who wrote the
// lines of each (from the folder's checkpoint log: whose step's change brought them in), and
// the file with one hunk put back as it was, byte for byte (its line ends and mode kept).

import { createHash } from 'node:crypto';
import { changeHunks, type TextHunk } from '../text/unified-diff';
import type { Checkpoint } from './types';

/** Who wrote a line: a thread's step (when), the person (between steps, or a restore they asked for), or nobody known. */
export type LineAuthor = { kind: 'agent'; thread: string; at: string } | { kind: 'person' } | { kind: 'unknown' };

export interface ReviewHunk extends TextHunk {
  /** The same for the same change of the same file, wherever it moves (a Reviewed mark follows it). */
  id: string;
  /** Who wrote its added lines and who removed lines there; each once. */
  authors: LineAuthor[];
}

/** One recorded change of the file, oldest first: who made it, and its texts ('' when absent or not text). */
export interface TextStep {
  by: LineAuthor;
  before: string;
  after: string;
}

const UNKNOWN: LineAuthor = { kind: 'unknown' };

/** An agent checkpoint is its thread's; the person's changes between steps and the restores they ask for are theirs. */
export function authorOf(c: Checkpoint): LineAuthor {
  return c.kind === 'agent' && c.threadId !== null ? { kind: 'agent', thread: c.threadId, at: c.createdAt } : { kind: 'person' };
}

/** The hunks of `first` → `last`, each with who wrote it along `steps` (the recorded changes in between). */
export function reviewHunks(path: string, first: string, last: string, steps: readonly TextStep[]): ReviewHunk[] {
  let labels: Labels = { lines: new Array<LineAuthor>(lineCount(first)).fill(UNKNOWN), gaps: [] };
  let text = first;
  for (const step of steps) {
    // A change nobody recorded (content no longer kept, or made outside any snapshot).
    if (step.before !== text) labels = carry(labels, text, step.before, UNKNOWN);
    labels = carry(labels, step.before, step.after, step.by);
    text = step.after;
  }
  if (text !== last) labels = carry(labels, text, last, UNKNOWN);
  return changeHunks(first, last).map((h) => {
    const at = h.newStart - 1;
    const removers = h.oldLines > 0 ? labels.gaps.slice(at, at + h.newLines + 1).filter((a) => a !== undefined) : [];
    const authors = [...labels.lines.slice(at, at + h.newLines), ...removers];
    return { ...h, id: hunkId(path, h), authors: distinct(authors.length > 0 ? authors : [UNKNOWN]) };
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

/** Who wrote each line, and who last removed lines just before each line (`gaps[k]`, before line k; one more than lines). */
interface Labels {
  lines: LineAuthor[];
  gaps: Array<LineAuthor | undefined>;
}

/** The labels of `to`: lines kept from `from` keep theirs, added ones are `by`'s. */
function carry(prev: Labels, from: string, to: string, by: LineAuthor): Labels {
  const lines: LineAuthor[] = [];
  const gaps: Array<LineAuthor | undefined> = [];
  let i = 0;
  let removedHere: LineAuthor | undefined;
  const keepTo = (end: number): void => {
    for (; i < end; i++) {
      gaps.push(removedHere ?? prev.gaps[i]);
      removedHere = undefined;
      lines.push(prev.lines[i] ?? UNKNOWN);
    }
  };
  for (const h of changeHunks(from, to)) {
    keepTo(h.oldStart - 1);
    if (h.newLines === 0) removedHere = by;
    for (let k = 0; k < h.newLines; k++) {
      gaps.push(k === 0 ? prev.gaps[i] : undefined);
      lines.push(by);
    }
    i += h.oldLines;
  }
  keepTo(lineCount(from));
  gaps.push(removedHere ?? prev.gaps[i]);
  return { lines, gaps };
}

/** Lines as the diff counts them: a last line without a newline is one. */
function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
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

function distinct(authors: readonly LineAuthor[]): LineAuthor[] {
  const seen = new Map<string, LineAuthor>();
  for (const a of authors) seen.set(a.kind === 'agent' ? `agent:${a.thread}` : a.kind, a);
  return [...seen.values()];
}
