// grep and glob over a folder on disk, with ripgrep when it is available and a Node walk
// otherwise. Both engines apply the same filters (fs-walk / fs-ripgrep) and the same
// byte-level line rules (fs-grep-file), so their results are identical.

import path from 'node:path';
import type { GlobMatcher } from './glob-match';
import type { GlobResult, GrepMatch, GrepResult } from '../protocol';
import { compareCodePoints, joinVirtual } from '../paths';
import { SearchDeadline } from './fs-deadline';
import { ancestorRules, gitignoreAboveRoot, hasGitDir } from './fs-gitignore';
import { decodeLine, fileLooksBinary, searchFile } from './fs-grep-file';
import { FileInfoGatherer } from './fs-file-infos';
import { forEachLimit } from './fs-pool';
import type { RipgrepHit, RipgrepOutcome, RipgrepTarget } from './fs-ripgrep';
import { ripgrepFiles, ripgrepFindsRepository, ripgrepSearch } from './fs-ripgrep';
import { Walker } from './fs-walk';

export interface SearchEnv {
  /** The project root (real): .gitignore files above it never apply. */
  root: string;
  /** Opened files must lie inside `root` (virtual mode); without containment, false. */
  contained: boolean;
  /** ripgrep executable, or null for the Node search. */
  rg: string | null;
  maxFileBytes: number;
  budgetMs: number;
  signal?: AbortSignal;
  /** Called when ripgrep could not run; the search then completes in Node. */
  onRipgrepFailed?: () => void;
}

/** A folder or file to search: its real path and the virtual path results are reported under. */
export interface SearchTarget {
  real: string;
  virtual: string;
}

const FILE_CONCURRENCY = 8;

/** Keeps the first `limit` matches in (path, line) order in bounded memory, knowing whether more existed. */
export class MatchCollector {
  private items: GrepMatch[] = [];
  private cutoff: string | null = null;

  constructor(private readonly limit: number) {}

  add(match: GrepMatch): void {
    this.items.push(match);
    if (this.items.length >= 2 * (this.limit + 1) + 1024) this.compact();
  }

  /**
   * False when no match in a file at `path` can be kept: limit + 1 matches from paths
   * sorting before it are already held (so the result is truncated either way).
   */
  wants(path: string): boolean {
    return this.cutoff === null || compareCodePoints(path, this.cutoff) <= 0;
  }

  reset(): void {
    this.items = [];
    this.cutoff = null;
  }

  finish(cutShort: boolean): GrepResult {
    this.compact();
    return { matches: this.items.slice(0, this.limit), truncated: cutShort || this.items.length > this.limit };
  }

  private compact(): void {
    this.items.sort((a, b) => compareCodePoints(a.path, b.path) || a.line - b.line);
    if (this.items.length > this.limit + 1) this.items.length = this.limit + 1;
    if (this.items.length === this.limit + 1) this.cutoff = this.items[this.limit]!.path;
  }
}

/** Literal grep over a folder. `filter` tests paths relative to the folder. */
export async function grepTree(env: SearchEnv, target: SearchTarget, pattern: string, filter: GlobMatcher | null, maxCount: number): Promise<GrepResult> {
  const collector = new MatchCollector(maxCount);
  // A line never holds '\n', so such a pattern cannot match (ripgrep would split it into several).
  if (pattern.includes('\n')) return collector.finish(false);
  const deadline = new SearchDeadline(env.budgetMs, env.signal);
  try {
    const rg = pattern.includes('\0') ? null : await ripgrepTarget(env, target.real, deadline);
    if (rg) {
      const outcome = await grepWithRipgrep(env, rg, target, pattern, filter, maxCount, collector, deadline);
      if (outcome.ok) return collector.finish(!outcome.completed);
      env.onRipgrepFailed?.();
      collector.reset();
    }
    const completed = await grepWithNode(env, target, pattern, filter, maxCount, collector, deadline);
    return collector.finish(!completed);
  } finally {
    deadline.dispose();
  }
}

/** Literal grep in one file (same skipping rules as a folder search). */
export async function grepFile(env: SearchEnv, target: SearchTarget, pattern: string, maxCount: number): Promise<GrepResult> {
  const collector = new MatchCollector(maxCount);
  if (pattern.includes('\n')) return collector.finish(false);
  const hits = await searchFile(target.real, Buffer.from(pattern, 'utf8'), maxCount + 1, env.maxFileBytes, env.contained ? env.root : undefined);
  for (const h of hits ?? []) collector.add({ path: target.virtual, line: h.line, text: decodeLine(h.bytes) });
  return collector.finish(false);
}

/** Files below a folder whose path relative to it matches `matcher`, sorted, with size and modifiedAt. */
export async function globTree(env: SearchEnv, target: SearchTarget, matcher: GlobMatcher): Promise<GlobResult> {
  const deadline = new SearchDeadline(env.budgetMs, env.signal);
  try {
    const rg = await ripgrepTarget(env, target.real, deadline);
    if (rg) {
      const infos = new FileInfoGatherer();
      const prefix = dirPrefix(target.real);
      const outcome = await ripgrepFiles(rg, deadline, (reals) => {
        for (const real of reals) {
          const rel = relUnder(prefix, real);
          if (rel !== null && matcher.matches(rel)) infos.add(real, joinVirtual(target.virtual, rel));
        }
      });
      if (outcome.ok) return { matches: await infos.finish(), truncated: !outcome.completed };
      env.onRipgrepFailed?.();
      await infos.finish();
    }
    const infos = new FileInfoGatherer();
    const walker = new Walker({ root: env.root, start: target.real, enterDir: (rel) => matcher.mayMatchBelow(rel), shouldStop: () => deadline.stopped });
    for await (const file of walker.files()) if (matcher.matches(file.rel)) infos.add(file.real, joinVirtual(target.virtual, file.rel));
    return { matches: await infos.finish(), truncated: !walker.completed };
  } finally {
    deadline.dispose();
  }
}

/**
 * How to run ripgrep on `dir` so that it applies exactly the .gitignore files the walker
 * does, or null when it cannot (no ripgrep, it would also read .gitignore files above the
 * project root, or, outside any repository, a nested one would need its own rules).
 */
async function ripgrepTarget(env: SearchEnv, dir: string, deadline: SearchDeadline): Promise<RipgrepTarget | null> {
  if (!env.rg) return null;
  const inRepository = await insideRepository(dir);
  const ancestors = await ancestorRules(env.root, dir);
  let target: RipgrepTarget | null = null;
  if (ancestors.stack.length === 0 || (await hasGitDir(dir))) target = { rg: env.rg, dir, parents: false, inRepository };
  // ripgrep climbs to the nearest folder holding `.git`; it must not pass the root.
  else if (ancestors.sawGit || !(await gitignoreAboveRoot(env.root))) target = { rg: env.rg, dir, parents: true, inRepository };
  if (target === null || inRepository) return target;
  const nested = await ripgrepFindsRepository(target, deadline);
  if (!nested.ok) env.onRipgrepFailed?.();
  return nested.ok && nested.found === false ? target : null;
}

/** Whether `dir` or a folder above it holds `.git`, as ripgrep looks for a repository. */
async function insideRepository(dir: string): Promise<boolean> {
  for (let d = dir; ; d = path.dirname(d)) {
    if (await hasGitDir(d)) return true;
    if (path.dirname(d) === d) return false;
  }
}

async function grepWithRipgrep(
  env: SearchEnv, rg: RipgrepTarget, target: SearchTarget, pattern: string, filter: GlobMatcher | null,
  maxCount: number, collector: MatchCollector, deadline: SearchDeadline,
): Promise<RipgrepOutcome> {
  const prefix = dirPrefix(target.real);
  const binary = new Map<string, boolean>();
  return ripgrepSearch(rg, pattern, maxCount + 1, env.maxFileBytes, deadline, async (hits) => {
    const byFile = new Map<string, { rel: string; hits: RipgrepHit[] }>();
    for (const hit of hits) {
      let group = byFile.get(hit.real);
      if (!group) {
        const rel = relUnder(prefix, hit.real);
        if (rel === null || (filter && !filter.matches(rel)) || !collector.wants(joinVirtual(target.virtual, rel))) continue;
        group = { rel, hits: [] };
        byFile.set(hit.real, group);
      }
      group.hits.push(hit);
    }
    // ripgrep runs with -a; a NUL in the first 8 KiB makes the file binary, as in the walker.
    const unchecked = [...byFile.keys()].filter((real) => !binary.has(real));
    await forEachLimit(unchecked, 16, async (real) => {
      binary.set(real, await fileLooksBinary(real));
    });
    for (const [real, group] of byFile) {
      if (binary.get(real)) continue;
      const virtual = joinVirtual(target.virtual, group.rel);
      for (const h of group.hits) collector.add({ path: virtual, line: h.line, text: decodeLine(h.bytes) });
    }
  });
}

async function grepWithNode(
  env: SearchEnv, target: SearchTarget, pattern: string, filter: GlobMatcher | null,
  maxCount: number, collector: MatchCollector, deadline: SearchDeadline,
): Promise<boolean> {
  const needle = Buffer.from(pattern, 'utf8');
  const walker = new Walker({
    root: env.root,
    start: target.real,
    enterDir: filter ? (rel) => filter.mayMatchBelow(rel) : undefined,
    shouldStop: () => deadline.stopped,
  });
  await forEachLimit(walker.files(), FILE_CONCURRENCY, async (file) => {
    if (filter && !filter.matches(file.rel)) return;
    const virtual = joinVirtual(target.virtual, file.rel);
    if (!collector.wants(virtual)) return;
    const hits = await searchFile(file.real, needle, maxCount + 1, env.maxFileBytes, env.contained ? env.root : undefined);
    if (!hits) return;
    for (const h of hits) collector.add({ path: virtual, line: h.line, text: decodeLine(h.bytes) });
  });
  return walker.completed;
}

function dirPrefix(dir: string): string {
  return dir.endsWith(path.sep) ? dir : dir + path.sep;
}

/** `real` relative to the folder with prefix `prefix`, '/'-separated; null when not below it. */
function relUnder(prefix: string, real: string): string | null {
  if (!real.startsWith(prefix) || real.length === prefix.length) return null;
  const rel = real.slice(prefix.length);
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}
