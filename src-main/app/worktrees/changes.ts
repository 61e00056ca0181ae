// What differs between two trees, file by file (`git diff-tree` name-status and numstat, read
// with -z so no path is quoted or cut), and the same as a unified diff for the window.

import { gitError, LONG_TIMEOUT_MS, nulFields, type GitRunner } from './worktree-git';
import { PLAIN_DIFF } from '../../core/git/held-off-config';

export type ChangeKind = 'added' | 'modified' | 'deleted';

export interface ChangedFile {
  path: string;
  kind: ChangeKind;
  /** Lines added and removed; null for a binary file. */
  additions: number | null;
  deletions: number | null;
}

export interface Changes {
  /** The first `limit` files, in git's order. */
  files: ChangedFile[];
  /** How many files changed in all. */
  total: number;
  truncated: boolean;
  counts: Record<ChangeKind, number>;
}

const KINDS: Record<string, ChangeKind> = { A: 'added', D: 'deleted' };

export async function changesBetween(git: GitRunner, cwd: string, from: string, to: string, options: { limit: number; signal?: AbortSignal | undefined }): Promise<Changes> {
  const counts: Record<ChangeKind, number> = { added: 0, modified: 0, deleted: 0 };
  if (from === to) return { files: [], total: 0, truncated: false, counts };
  const call = { cwd, signal: options.signal, timeoutMs: LONG_TIMEOUT_MS };
  const [names, numbers] = await Promise.all([
    git.out(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to], call, 'listing the changes'),
    git.out(['diff-tree', '-r', '-z', '--no-renames', '--numstat', from, to], call, 'counting the changed lines'),
  ]);
  const lines = new Map<string, { additions: number | null; deletions: number | null }>();
  for (const field of nulFields(numbers)) {
    const match = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(field);
    if (match) lines.set(match[3]!, { additions: match[1] === '-' ? null : Number(match[1]), deletions: match[2] === '-' ? null : Number(match[2]) });
  }
  const fields = nulFields(names);
  const files: ChangedFile[] = [];
  let total = 0;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const kind = KINDS[fields[i]!.charAt(0)] ?? 'modified';
    const path = fields[i + 1]!;
    counts[kind]++;
    total++;
    if (files.length < options.limit) files.push({ path, kind, ...(lines.get(path) ?? { additions: null, deletions: null }) });
  }
  return { files, total, truncated: total > files.length, counts };
}

/** `+3 ~2 -1` (added, modified, deleted), or `clean`. */
export function changeCountsText(counts: Record<ChangeKind, number>): string {
  const parts = [counts.added > 0 ? `+${counts.added}` : '', counts.modified > 0 ? `~${counts.modified}` : '', counts.deleted > 0 ? `-${counts.deleted}` : ''].filter(Boolean);
  return parts.length === 0 ? 'clean' : parts.join(' ');
}

export interface UnifiedDiff {
  diff: string;
  /** Cut at `maxBytes` (at a line's end). */
  truncated: boolean;
}

/** The unified diff from `from` to `to` (binary files named, not shown), at most `maxBytes`. */
export async function unifiedDiff(git: GitRunner, cwd: string, from: string, to: string, options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<UnifiedDiff> {
  if (from === to) return { diff: '', truncated: false };
  const result = await git.run(
    [
      ...PLAIN_DIFF.config, 'diff', ...PLAIN_DIFF.args, from, to, '--',
    ],
    { cwd, signal: options.signal, timeoutMs: LONG_TIMEOUT_MS, maxBytes: options.maxBytes },
  );
  if (result.code !== 0 && !result.truncated) throw gitError(result, 'making the diff', LONG_TIMEOUT_MS);
  if (!result.truncated) return { diff: result.stdout, truncated: false };
  const cut = result.stdout.lastIndexOf('\n');
  return { diff: cut >= 0 ? result.stdout.slice(0, cut + 1) : '', truncated: true };
}
