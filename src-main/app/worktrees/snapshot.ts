// A working tree's whole state as a git tree, made without touching it: tracked files as they
// are on disk, deletions, and untracked files that are not ignored. The repository's index is
// copied to a temporary file and `git add -A` + `git write-tree` run on the copy: the copy
// keeps the index's stat cache, so only files that changed are read again (a big repository
// costs a walk of its folders, not a re-hash of every file). The person's index and files stay
// as they were; only blobs are added to the object store. When the caller knows the HEAD tree
// and the copy's entries turn out to be exactly that tree (index-tree.ts: what `git write-tree`
// would answer, read from the index files), no `write-tree` is started.

import { closeSync, existsSync, fstatSync, openSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRunFolder } from '../../core/sandbox/run-folders';
import { indexIsTree } from './index-tree';
import { gitError, LONG_TIMEOUT_MS, nulFields, WorktreeError, type GitRunner } from './worktree-git';

export interface Snapshot {
  /** The tree object of the working state. */
  tree: string;
  /** The temporary index holding that state, its stat cache fresh (kept until dispose()). */
  indexFile: string;
  dispose(): void;
}

export interface SnapshotOptions {
  /** The working tree's HEAD tree (hex), when known: a state that is that tree is known without `git write-tree`. */
  headTree?: Promise<string | undefined>;
}

/** The snapshot of the working tree whose top-level folder is `top`. */
export async function snapshotTree(git: GitRunner, top: string, signal?: AbortSignal, options: SnapshotOptions = {}): Promise<Snapshot> {
  const indexPath = await indexPathOf(git, top, signal);
  // Named after this process: one killed mid-Apply leaves it to the next process's sweep.
  const dir = makeRunFolder('deepdesk-snapshot-');
  const indexFile = join(dir, 'index');
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    // The index as it is (one open file: its bytes and times are of the same file).
    let original: Buffer | undefined;
    try {
      const fd = openSync(indexPath, 'r');
      try {
        const { atime, mtime } = fstatSync(fd);
        original = readFileSync(fd);
        writeFileSync(indexFile, original);
        // The copy keeps the index's own times: git trusts a file's cached stat only when the
        // file is older than the index, so a fresh time would hide an edit of the same size made
        // in the second the index was written ("racy git").
        utimesSync(indexFile, atime, mtime);
      } finally {
        closeSync(fd);
      }
    } catch {
      original = undefined; // No index yet: git starts from an empty one.
      rmSync(indexFile, { force: true });
    }
    const copied = original !== undefined;
    let added = await git.run(['add', '-A'], { cwd: top, signal, indexFile, timeoutMs: LONG_TIMEOUT_MS });
    if (added.code !== 0 && copied && !added.aborted) {
      // A copy git cannot use (a split index whose shared part lies beside the original): start empty.
      original = undefined;
      rmSync(indexFile, { force: true });
      added = await git.run(['add', '-A'], { cwd: top, signal, indexFile, timeoutMs: LONG_TIMEOUT_MS });
    }
    if (added.code !== 0) {
      const empty = emptyRepositories(added.stderr);
      if (empty.length > 0) throw new WorktreeError(`${top}: ${empty.map((rel) => `${rel} is a git repository with no commit`).join('; ')}: git cannot record it — commit in it or remove it, then try again`, 'failed');
      throw gitError(added, 'reading the working tree', LONG_TIMEOUT_MS);
    }
    const headTree = await options.headTree?.catch(() => undefined);
    if (headTree !== undefined && indexIsTree(readFileSync(indexFile), original, headTree)) return { tree: headTree, indexFile, dispose };
    const tree = await git.line(['write-tree'], { cwd: top, signal, indexFile }, 'writing the snapshot');
    return { tree, indexFile, dispose };
  } catch (err) {
    dispose();
    throw err;
  }
}

/**
 * The nested repositories `git add` could not record (`error: 'sub/' does not have a commit
 * checked out`): one made with nothing committed is a folder git can neither add nor skip.
 */
function emptyRepositories(stderr: string): string[] {
  return [...stderr.matchAll(/^error: '(.+)' does not have a commit checked out$/gm)].map((m) => m[1]!);
}

/** Where a working tree's index lives (it never moves: asked once per folder and process). */
const indexPaths = new Map<string, string>();

/** Forgets where `top`'s index is (a worktree made or removed there). */
export function forgetIndexPath(top: string): void {
  indexPaths.delete(top);
}

/** Where `top`'s index is, when it was asked already (no process). */
export function knownIndexPath(top: string): string | undefined {
  return indexPaths.get(top);
}

async function indexPathOf(git: GitRunner, top: string, signal?: AbortSignal): Promise<string> {
  const known = indexPaths.get(top);
  if (known !== undefined && existsSync(known)) return known;
  const path = resolve(top, await git.line(['rev-parse', '--git-path', 'index'], { cwd: top, signal }, 'finding the index'));
  indexPaths.set(top, path);
  return path;
}

/** The snapshot's tree, the temporary index removed at once. */
export async function snapshotTreeOnly(git: GitRunner, top: string, signal?: AbortSignal): Promise<string> {
  const snapshot = await snapshotTree(git, top, signal);
  snapshot.dispose();
  return snapshot.tree;
}

/** The paths that differ between two trees (or commits), renames as a deletion and an addition. */
export async function changedPaths(git: GitRunner, cwd: string, from: string, to: string, signal?: AbortSignal): Promise<string[]> {
  if (from === to) return [];
  const out = await git.out(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to], { cwd, signal, timeoutMs: LONG_TIMEOUT_MS }, 'comparing trees');
  return nulFields(out);
}
