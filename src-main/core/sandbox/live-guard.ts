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
import { enforceGitSurface, type GitSurface, type RepositoryWalkCache } from '../git/surface';
import { dedupeItems, displayPath, formatBlockedLine } from './blocked';
import { isWithin, type ResolvedPolicy } from './policy';
import type { LiveCheck } from './types';

/** What a server may not write at all: every git folder of the project, whole (not the project itself, were it one). */
export function serverReadOnlyPaths(surface: GitSurface, projectDir: string): string[] {
  return [...surface.gitDirs.keys()].filter((dir) => dir !== projectDir && isWithin(dir, projectDir));
}

export interface LiveCheckOptions {
  policy: ResolvedPolicy;
  /** The folder's git surface before the process started. */
  before: GitSurface;
  /** Paths read-only to the process: what changes there is the person's. */
  untouchable: readonly string[];
  cache: RepositoryWalkCache;
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

async function checkOnce({ policy, before, untouchable, cache }: LiveCheckOptions): Promise<LiveCheck> {
  // Nothing is excused for being old: a path the snapshot did not hold is judged by what it is.
  const enforce = () => enforceGitSurface(policy.projectDir, before, { home: policy.home, untouchable, cache });
  const undone = await enforce();
  if (undone.items.length === 0) return { unremoved: [] };
  // What is still there once undone could not be undone (or was made again at once).
  const left = await enforce();
  const blockedLine = formatBlockedLine(dedupeItems(undone.items), policy);
  return {
    ...(blockedLine !== undefined ? { blockedLine } : {}),
    unremoved: [...new Set(left.items.flatMap((item) => ('path' in item ? [displayPath(item.path, policy)] : [])))],
  };
}
