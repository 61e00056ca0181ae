// What conflicts when a worktree's changes do not merge into the person's folder, file by
// file, as git's conflict view shows it: the conflicting lines of both sides (and of the base,
// with merge.conflictStyle diff3) with a few lines around, read from the tree `git merge-tree
// --write-tree` made (its files hold the conflict markers), and git's words for the conflicts
// that have no lines (a file deleted on one side, a binary file), the two sides named.

import { nulFields, type GitRunner } from './worktree-git';

export interface ConflictHunk {
  /** The line the conflict starts at in the merged file (1-based). */
  line: number;
  /** Unchanged lines just before and after it. */
  before: string[];
  after: string[];
  /** The person's folder's lines. */
  folder: string[];
  /** The base's lines, when git's conflict style shows them (diff3, zdiff3). */
  base?: string[];
  /** The worktree's lines. */
  worktree: string[];
}

export interface ConflictedFile {
  path: string;
  /** git's words for a conflict of another kind than lines (e.g. `deleted in your folder and modified in the worktree`). */
  notes: string[];
  hunks: ConflictHunk[];
  /** Some hunks or lines are left out (too many, too long, or the file is too big to show). */
  truncated: boolean;
}

/** The conflicts a `merge-tree --write-tree -z --name-only` run that exited 1 reported. */
export interface MergeTreeConflicts {
  /** The merged tree, conflict markers in its conflicting files. */
  tree: string;
  paths: string[];
  /** git's CONFLICT messages per path: the kind (`add/add`, `modify/delete`…) and the text, commit ids as git wrote them. */
  messages: Map<string, Array<{ kind: string; text: string }>>;
}

/** Reads `merge-tree --write-tree -z --name-only` output (without --no-messages). */
export function parseMergeTree(stdout: string): MergeTreeConflicts {
  const fields = nulFields(stdout);
  const tree = fields[0] ?? '';
  let i = 1;
  const paths: string[] = [];
  while (i < fields.length && fields[i] !== '') paths.push(fields[i++]!);
  i++;
  const messages: MergeTreeConflicts['messages'] = new Map();
  while (i < fields.length) {
    const count = Number(fields[i++]);
    if (!Number.isInteger(count) || count < 0) break;
    const about = fields.slice(i, i + count);
    i += count;
    const type = fields[i++] ?? '';
    const message = (fields[i++] ?? '').trim();
    if (!type.startsWith('CONFLICT')) continue;
    // The message names the kind (`CONFLICT (add/add): …`); the type may be only `CONFLICT (contents)`.
    const said = /^CONFLICT \(([^)]+)\):\s*/.exec(message);
    const kind = said?.[1] ?? /^CONFLICT \((.+)\)$/.exec(type)?.[1] ?? '';
    if (kind === 'content' || kind === 'contents') continue;
    const text = said !== null ? message.slice(said[0].length) : message.replace(/^warning:\s*/, '');
    for (const path of about) messages.set(path, [...(messages.get(path) ?? []), { kind, text }]);
  }
  return { tree, paths: [...new Set(paths)], messages };
}

const SHOWN_FILES = 20;
const SHOWN_HUNKS = 8;
const SIDE_LINES = 30;
const CONTEXT_LINES = 3;
const FILE_BYTES = 512 * 1024;

export interface ConflictSides {
  /** The commits merged, as git names them in its messages and markers, and the words for each. */
  folderCommit: string;
  worktreeCommit: string;
  folderName: string;
  worktreeName: string;
}

/** Each conflicting file's hunks and notes (the first 20 files in detail; the rest by name). */
export async function conflictDetails(git: GitRunner, cwd: string, merged: MergeTreeConflicts, sides: ConflictSides, signal?: AbortSignal): Promise<ConflictedFile[]> {
  const named = (text: string) => text.replaceAll(sides.folderCommit, sides.folderName).replaceAll(sides.worktreeCommit, sides.worktreeName);
  return Promise.all(
    merged.paths.map(async (path, index): Promise<ConflictedFile> => {
      // git's words for an add/add conflict only name the file again: its lines show the rest.
      const notes = (merged.messages.get(path) ?? []).map((m) => (m.kind === 'add/add' ? `added both in ${sides.folderName} and in ${sides.worktreeName}, differently` : named(m.text)));
      if (index >= SHOWN_FILES) return { path, notes, hunks: [], truncated: true };
      const blob = await git.run(['cat-file', 'blob', `${merged.tree}:${path}`], { cwd, signal, maxBytes: FILE_BYTES });
      if (blob.code !== 0 && !blob.truncated) return { path, notes, hunks: [], truncated: false };
      if (blob.truncated) return { path, notes: [...notes, 'the file is too big to show its conflicting lines'], hunks: [], truncated: true };
      if (blob.stdout.includes('\0')) return { path, notes: notes.length > 0 ? notes : ['a binary file changed on both sides'], hunks: [], truncated: false };
      return { path, notes, ...conflictHunks(blob.stdout) };
    }),
  );
}

/** The conflict blocks of a file with git's markers (`<<<<<<<`, `|||||||`, `=======`, `>>>>>>>`). */
export function conflictHunks(text: string): { hunks: ConflictHunk[]; truncated: boolean } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const hunks: ConflictHunk[] = [];
  let truncated = false;
  let lastEnd = 0;
  for (let i = 0; i < lines.length; i++) {
    const open = /^(<{7,})(?: |$)/.exec(lines[i]!);
    if (open === null) continue;
    const size = open[1]!.length;
    const marker = (char: string, line: string) => line.startsWith(char.repeat(size)) && (line.length === size || line.charAt(size) === ' ');
    const parts: string[][] = [[]];
    let kinds: Array<'folder' | 'base' | 'worktree'> = ['folder'];
    let end = -1;
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j]!;
      if (marker('|', line)) {
        parts.push([]);
        kinds = [...kinds, 'base'];
      } else if (line === '='.repeat(size)) {
        parts.push([]);
        kinds = [...kinds, 'worktree'];
      } else if (marker('>', line)) {
        end = j;
        break;
      } else parts.at(-1)!.push(line);
    }
    if (end < 0 || !kinds.includes('worktree')) continue;
    if (hunks.length === SHOWN_HUNKS) {
      truncated = true;
      break;
    }
    const side = (kind: 'folder' | 'base' | 'worktree'): string[] | undefined => {
      const at = kinds.indexOf(kind);
      if (at < 0) return undefined;
      const all = parts[at]!;
      if (all.length > SIDE_LINES) truncated = true;
      return all.slice(0, SIDE_LINES);
    };
    const nextOpen = lines.findIndex((l, k) => k > end && /^<{7,}(?: |$)/.test(l));
    const base = side('base');
    hunks.push({
      line: i + 1,
      before: lines.slice(Math.max(lastEnd, i - CONTEXT_LINES), i),
      folder: side('folder')!,
      ...(base !== undefined ? { base } : {}),
      worktree: side('worktree')!,
      after: lines.slice(end + 1, Math.min(end + 1 + CONTEXT_LINES, nextOpen < 0 ? lines.length : nextOpen)),
    });
    lastEnd = end + 1;
    i = end;
  }
  return { hunks, truncated };
}

/**
 * The files of `tree` among `paths` (those that conflicted when the worktree took the folder
 * in) that still hold a conflict block: applying them would put git's markers into the
 * person's files.
 */
export async function unresolvedConflicts(git: GitRunner, cwd: string, tree: string, paths: readonly string[], signal?: AbortSignal): Promise<ConflictedFile[]> {
  const found = await Promise.all(
    paths.map(async (path): Promise<ConflictedFile | undefined> => {
      const blob = await git.run(['cat-file', 'blob', `${tree}:${path}`], { cwd, signal, maxBytes: FILE_BYTES });
      if (blob.code !== 0 && !blob.truncated) return undefined;
      const { hunks, truncated } = conflictHunks(blob.stdout);
      if (hunks.length === 0) return undefined;
      return { path, notes: ['it still holds the conflict markers put there for the agent to resolve'], hunks, truncated: truncated || blob.truncated === true };
    }),
  );
  return found.filter((f): f is ConflictedFile => f !== undefined);
}
