// The git-surface rule for a long-lived sandboxed process (an MCP server, SPEC §7: "while
// it runs, not only when it ends"). A server shares the folder with the person for hours,
// so what it plants must never wait for its end to be undone: the person's `git status`
// meanwhile would run it.
//
// Two parts:
// - Every repository that exists when it starts is read-only to it, whole (its git folder,
//   index, refs and objects included, and every `.git` file): nothing can be planted in an
//   existing repository at all — a missing `commondir`, `config.worktree`, a new
//   `worktrees/` or `modules/` entry — because none of it can be written. A server cannot
//   commit or stage; its git writes fail with "Read-only file system".
// - What cannot be mounted (a repository, a `.git` file or a folder a config names that
//   appears later) is checked by the check made here, again and again while it runs (the
//   supervisor's watch, each tool result, its stop). It compares the folder with the
//   snapshot taken before it started by content, never by age: whatever is new and not
//   inert is undone, whoever made it. What could not be undone is said, never swallowed.
// - A protected path (the folder's own configuration, SPEC §7 and §9) that did not exist when
//   it started cannot be mounted read-only either: one that appears is moved out of the
//   folder into the data folder's quarantine (kept, not deleted: the person may have made it
//   meanwhile), and the log says where.
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { enforceGitSurface, type GitSurface, type RepositoryWalkCache } from '../git/surface';
import { dedupeItems, displayPath, formatBlockedLine, type BlockedItem } from './blocked';
import { type ResolvedPolicy } from './policy';
import { existsNoFollow } from '../fs/file-checks';
import { isPathInside } from '../fs/path-inside';
import type { LiveCheck } from './types';

/** What a server may not write at all: every git folder of the project, whole (not the project itself, were it one). */
export function serverReadOnlyPaths(surface: GitSurface, projectDir: string): string[] {
  return [...surface.gitDirs.keys()].filter((dir) => dir !== projectDir && isPathInside(projectDir, dir));
}

export interface LiveCheckOptions {
  policy: ResolvedPolicy;
  /** The folder's git surface before the process started. */
  before: GitSurface;
  /** Paths read-only to the process: what changes there is the person's. */
  untouchable: readonly string[];
  cache: RepositoryWalkCache;
  /** Protected paths in the folder that did not exist when it started. */
  missingProtected?: readonly string[];
}

/**
 * The check, to call as often as wanted: one runs at a time, and calls made while one waits
 * to start share it (a call made while one runs gets the next, so nothing it should see is
 * missed).
 */
export function liveSurfaceCheck(options: LiveCheckOptions): () => Promise<LiveCheck> {
  let tail: Promise<unknown> = Promise.resolve();
  let waiting: Promise<LiveCheck> | undefined;
  return () => {
    if (waiting) return waiting;
    const next = tail.then(() => {
      waiting = undefined;
      return checkOnce(options);
    });
    waiting = next;
    tail = next.catch(() => undefined);
    return next;
  };
}

async function checkOnce({ policy, before, untouchable, cache, missingProtected = [] }: LiveCheckOptions): Promise<LiveCheck> {
  // Nothing is excused for being old: a path the snapshot did not hold is judged by what it is.
  const enforce = () => enforceGitSurface(policy.projectDir, before, { home: policy.home, untouchable, cache });
  const undone = await enforce();
  const quarantined = quarantineProtected(policy, missingProtected);
  undone.items.push(...quarantined);
  if (undone.items.length === 0) return { unremoved: [] };
  // What is still there once undone could not be undone (or was made again at once).
  const left = await enforce();
  const blockedLine = formatBlockedLine(dedupeItems(undone.items), policy);
  return {
    ...(blockedLine !== undefined ? { blockedLine } : {}),
    unremoved: [...new Set(left.items.flatMap((item) => ('path' in item ? [displayPath(item.path, policy)] : [])))],
  };
}

/** Moves protected paths that appeared into `<data-dir>/quarantine/<time>/`, for the blocked line. */
function quarantineProtected(policy: ResolvedPolicy, paths: readonly string[]): BlockedItem[] {
  const items: BlockedItem[] = [];
  for (const path of paths) {
    if (!existsNoFollow(path)) continue;
    const rel = relative(policy.projectDir, path);
    const kept = join(policy.dataDir, 'quarantine', new Date().toISOString().replace(/[:.]/g, '-'), rel);
    try {
      mkdirSync(dirname(kept), { recursive: true, mode: 0o700 });
      try {
        renameSync(path, kept);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        // Another file system: copied (links as links), then removed.
        cpSync(path, kept, { recursive: true, verbatimSymlinks: true });
        rmSync(path, { recursive: true, force: true });
      }
      if (existsSync(path)) throw Object.assign(new Error('still there'), { code: 'EPERM' });
      items.push({ kind: 'write', path, why: `a protected path; moved to ${kept}` });
    } catch (err) {
      items.push({ kind: 'write', path, why: `could not undo (${(err as NodeJS.ErrnoException).code ?? 'EUNKNOWN'}): a protected path` });
    }
  }
  return items;
}
