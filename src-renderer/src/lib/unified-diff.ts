// A git unified diff of many files (a worktree's diff against its base) cut into files, each
// with its hunks as DiffView shows them (rowsFromHunks). Paths git quoted (`"a/caf\303\251"`)
// are read back; a binary file is named, without hunks.

import type { Hunk } from './diff-rows';

/** A hunk as rowsFromHunks and FileChangeDto take it. */
export type DiffHunk = Hunk & { lines: string[] };

export interface DiffFile {
  path: string;
  created: boolean;
  deleted: boolean;
  binary: boolean;
  hunks: DiffHunk[];
  added: number;
  removed: number;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function parseUnifiedDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let hunk: { lines: string[]; oldLeft: number; newLeft: number } | undefined;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (hunk !== undefined && (hunk.oldLeft > 0 || hunk.newLeft > 0)) {
      // Inside a hunk, its line counts say where it ends (a `--- ` line may be a removed line).
      const mark = line === '' ? ' ' : line[0];
      if (mark === ' ' || mark === '-' || mark === '+') {
        hunk.lines.push(line === '' ? ' ' : line);
        if (mark !== '+') hunk.oldLeft--;
        if (mark !== '-') hunk.newLeft--;
        if (mark === '+') file!.added++;
        if (mark === '-') file!.removed++;
        continue;
      }
    }
    if (line.startsWith('\\')) {
      hunk?.lines.push(line);
      continue;
    }
    if (line.startsWith('diff --git ')) {
      file = { path: pathOfHeader(line.slice('diff --git '.length)), created: false, deleted: false, binary: false, hunks: [], added: 0, removed: 0 };
      files.push(file);
      hunk = undefined;
      continue;
    }
    if (file === undefined) continue;
    const header = HUNK_HEADER.exec(line);
    if (header) {
      const h: DiffHunk = { oldStart: Number(header[1]), oldLines: header[2] === undefined ? 1 : Number(header[2]), newStart: Number(header[3]), newLines: header[4] === undefined ? 1 : Number(header[4]), lines: [] };
      hunk = { lines: h.lines, oldLeft: h.oldLines, newLeft: h.newLines };
      file.hunks.push(h);
      continue;
    }
    if (hunk !== undefined) continue;
    if (line.startsWith('new file mode')) file.created = true;
    else if (line.startsWith('deleted file mode')) file.deleted = true;
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
    else if (line.startsWith('+++ ') && line !== '+++ /dev/null') file.path = stripPrefix(unquote(line.slice(4)));
    else if (line.startsWith('--- ') && line !== '--- /dev/null' && file.deleted) file.path = stripPrefix(unquote(line.slice(4)));
  }
  return files;
}

/** The path of `a/X b/X` (the two halves are the same path: no rename is shown). */
function pathOfHeader(rest: string): string {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    return stripPrefix(unquote(rest.slice(0, end + 1)));
  }
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ' && rest.slice(2, half) === rest.slice(half + 3)) return rest.slice(2, half);
  const space = rest.indexOf(' b/');
  return stripPrefix(space > 0 ? rest.slice(0, space) : rest);
}

function stripPrefix(path: string): string {
  return path.startsWith('a/') || path.startsWith('b/') ? path.slice(2) : path;
}

function closingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** A path as git writes it: as is, or in C-style quotes with octal bytes (UTF-8). */
export function unquote(text: string): string {
  const trimmed = text.replace(/\t$/, '');
  if (!trimmed.startsWith('"') || !trimmed.endsWith('"') || trimmed.length < 2) return trimmed;
  const bytes: number[] = [];
  const body = trimmed.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...new TextEncoder().encode(c));
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
