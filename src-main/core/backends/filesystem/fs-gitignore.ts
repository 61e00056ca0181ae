// .gitignore rules as ripgrep applies them (with --no-require-git, no global/exclude/.ignore
// files): each folder's .gitignore applies to the paths below it; for a path, the deepest
// .gitignore with a matching rule decides (so a deeper `!x` re-includes), within one file
// the last matching rule wins, and a folder holding `.git` starts a new repository whose
// paths ignore the .gitignore files above it. Pattern semantics come from `ignore`.

import fsp from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import type { Ignore } from 'ignore';
import { errnoOf } from '../../fs/errno';
import { isPathBelow } from '../../fs/path-inside';

export interface GitignoreRules {
  /** Real folder holding the .gitignore; rules see paths relative to it. */
  readonly dir: string;
  /** true = ignored, false = re-included by a negation, null = no rule matched. */
  check(relPath: string, isDir: boolean): boolean | null;
}

/** The stack of rules in force in one folder, outermost first. */
export type GitignoreStack = readonly GitignoreRules[];

interface RuleTester {
  test(path: string, mode: string): { ignored: boolean; unignored: boolean };
}

export function compileGitignore(dir: string, content: string): GitignoreRules | null {
  const ig = ignore({ ignorecase: false }).add(content);
  // `Ignore.test` also applies rules to the path's parent folders; ripgrep (and a walker
  // that never enters an ignored folder) tests each path on its own, which matters when a
  // search starts inside an ignored folder. `ignore` keeps that single-path test on its
  // rule manager; fall back to the public call if a future version moves it.
  const rules = (ig as unknown as { _rules?: Partial<RuleTester> })._rules;
  const single = rules && typeof rules.test === 'function' ? (rules as RuleTester) : null;
  return {
    dir,
    check(relPath, isDir) {
      const p = isDir ? relPath + '/' : relPath;
      try {
        const r = single ? single.test(p, 'regex') : (ig as Ignore).test(p);
        return r.ignored ? true : r.unignored ? false : null;
      } catch {
        return null;
      }
    },
  };
}

/** Reads `dir/.gitignore`; null when there is none (or it cannot be read). */
export async function loadGitignore(dir: string): Promise<GitignoreRules | null> {
  let content: string;
  try {
    content = await fsp.readFile(path.join(dir, '.gitignore'), 'utf8');
  } catch {
    return null;
  }
  return compileGitignore(dir, content);
}

/** Whether `dir/.git` exists (file or folder, symlinks followed), as ripgrep checks. */
export async function hasGitDir(dir: string): Promise<boolean> {
  try {
    await fsp.stat(path.join(dir, '.git'));
    return true;
  } catch (err) {
    return errnoOf(err) !== 'ENOENT' && errnoOf(err) !== 'ENOTDIR' && errnoOf(err) !== 'ELOOP';
  }
}

/** The stack for entries of `dir`, given the stack of its parent folder. */
export function childStack(parent: GitignoreStack, ownRules: GitignoreRules | null, hasGit: boolean): GitignoreStack {
  const base = hasGit ? [] : parent;
  return ownRules ? [...base, ownRules] : base;
}

/** Whether the entry at real path `real` is ignored by `stack`. */
export function isIgnored(stack: GitignoreStack, real: string, isDir: boolean): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const rules = stack[i]!;
    const rel = relativeTo(rules.dir, real);
    if (rel === null) continue;
    const verdict = rules.check(rel, isDir);
    if (verdict !== null) return verdict;
  }
  return false;
}

function relativeTo(dir: string, real: string): string | null {
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  if (!real.startsWith(prefix)) return null;
  const rel = real.slice(prefix.length);
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

export interface AncestorRules {
  /** Rules in force for the entries of `start` from the folders root .. start's parent. */
  stack: GitignoreStack;
  /** Some folder in root .. start's parent holds `.git`, so ripgrep stops climbing there. */
  sawGit: boolean;
}

/**
 * The .gitignore files of `root` and each folder down to `start`'s parent, restarted at
 * any folder holding `.git`. Folders above `root` are never consulted; `start` itself is
 * handled by the walker.
 */
export async function ancestorRules(root: string, start: string): Promise<AncestorRules> {
  if (!isPathBelow(root, start)) return { stack: [], sawGit: false };
  const parts = path.relative(root, start).split(path.sep);
  let stack: GitignoreStack = [];
  let sawGit = false;
  let dir = root;
  for (const part of parts) {
    const [rules, git] = await Promise.all([loadGitignore(dir), hasGitDir(dir)]);
    stack = childStack(stack, rules, git);
    sawGit ||= git;
    dir = path.join(dir, part);
  }
  return { stack, sawGit };
}

/** True when some folder above `root` has a .gitignore that ripgrep would apply (it climbs to the first `.git`). */
export async function gitignoreAboveRoot(root: string): Promise<boolean> {
  let dir = root;
  for (;;) {
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    dir = parent;
    const [rules, git] = await Promise.all([loadGitignore(dir), hasGitDir(dir)]);
    if (rules) return true;
    if (git) return false;
  }
}
