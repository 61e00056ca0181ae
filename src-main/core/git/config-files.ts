// The config files a git call reads, and whether any of them changed since: what lets the
// held-off verdict (run-git.ts) be kept from one call to the next instead of listing the config
// before every call. A verdict is a function of the config files' contents (and of the
// environment and place, which are its key), so it is kept while every file it was made from
// has the same identity: device, inode, mode, size, change and modification times (ns), or is
// still absent. Content cannot change without the change time moving (only the kernel sets
// it), so a config edited, replaced, created or deleted between two calls is listed again.
//
// Which files: the repository's `.git` (a folder, or a file pointing to one), its `commondir`
// pointer, the local `config` and the worktree's `config.worktree`, the person's global and
// system files, every file the listing names as an origin, and every file an include leads to,
// found or not. The repository's files are noted BEFORE the listing reads them (an edit
// between the two makes the noted identity stale: listed again next time, never the other way
// round), and the repository's own files must be the very files the listing found its entries
// in (compared by device and inode), else the verdict is not kept: a repository found
// elsewhere (no `.git` where git runs, a pointer read differently) is listed every time.
//
// RACY FILES: file times come from a coarse clock, so an edit right after a file was noted can
// leave its identity as it was (same size, same tick). As git does for its index, a verdict
// with any file changed within RACY_MS before the noting began is not kept; an edit after that
// always moves the change time past what was noted.

import { readFileSync, statSync, type BigIntStats } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** A file changed this recently when the listing began makes the verdict not kept (coarse clocks, 2 s file-system times, some clock skew). */
export const RACY_MS = 3_000;

/** A path's identity: null when absent; a folder by its device and inode (its own times move with every index write). */
type Identity = string | null;

function identityOf(stats: BigIntStats | undefined): Identity {
  if (stats === undefined) return null;
  if (stats.isDirectory()) return `d:${stats.dev}:${stats.ino}`;
  return `f:${stats.dev}:${stats.ino}:${stats.mode}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.rdev}`;
}

/** The path's stats, undefined when it is not there; throws on any other error (unreadable: nothing is kept). */
function statOf(path: string): BigIntStats | undefined {
  try {
    return statSync(path, { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** The identities of a verdict's files, noted as they are read. */
export class ConfigFiles {
  readonly identities = new Map<string, Identity>();
  /** False once a file could not be noted or changed too recently: the verdict is used once, not kept. */
  keepable = true;
  private readonly racySince: bigint;

  constructor(now = Date.now()) {
    this.racySince = BigInt(now - RACY_MS) * 1_000_000n;
  }

  /** Notes `path` as it is now; its stats, undefined when absent. */
  note(path: string): BigIntStats | undefined {
    let stats: BigIntStats | undefined;
    try {
      stats = statOf(path);
    } catch {
      this.keepable = false;
      return undefined;
    }
    if (stats !== undefined && !stats.isDirectory() && (stats.mtimeNs >= this.racySince || stats.ctimeNs >= this.racySince)) this.keepable = false;
    if (!this.identities.has(path)) this.identities.set(path, identityOf(stats));
    else if (this.identities.get(path) !== identityOf(stats)) this.keepable = false;
    return stats;
  }

  /** Whether `path` is now the same file as one of the noted ones (`among`: as one of those), however git spells it. */
  holds(path: string, among: readonly string[] = [...this.identities.keys()]): boolean {
    const inode = inodeOf(path);
    return inode !== undefined && among.some((noted) => inodeOfIdentity(this.identities.get(noted)) === inode);
  }
}

function inodeOf(path: string): string | undefined {
  try {
    const stats = statOf(path);
    return stats === undefined || stats.isDirectory() ? undefined : `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

function inodeOfIdentity(id: Identity | undefined): string | undefined {
  if (id === undefined || id === null || !id.startsWith('f:')) return undefined;
  return id.slice(2).split(':', 2).join(':');
}

/** Whether every noted file is as it was noted. */
export function unchanged(identities: ReadonlyMap<string, Identity>): boolean {
  for (const [path, id] of identities) {
    let now: Identity;
    try {
      now = identityOf(statOf(path));
    } catch {
      return false;
    }
    if (now !== id) return false;
  }
  return true;
}

/** The repository's git folder and the folder its shared files (`config`) are in. */
export interface RepositoryFolders {
  gitDir: string;
  commonDir: string;
}

/**
 * The repository a git call at `cwd` (or with `--git-dir`) uses, as git finds it, its pointers
 * noted: undefined when git would look further (no `.git` in `cwd`) or the pointer is not
 * plain — such a call's verdict is not kept.
 */
export function repositoryFolders(files: ConfigFiles, cwd: string, gitDirOption: string | undefined): RepositoryFolders | undefined {
  let gitDir: string;
  if (gitDirOption !== undefined) gitDir = resolve(cwd, gitDirOption);
  else {
    const dotGit = join(cwd, '.git');
    const stats = files.note(dotGit);
    if (stats === undefined) return undefined;
    if (stats.isDirectory()) gitDir = dotGit;
    else if (stats.isFile()) {
      const pointer = readSmall(dotGit)?.replace(/\s+$/, '');
      if (pointer === undefined || !pointer.startsWith('gitdir: ') || pointer.includes('\n')) return undefined;
      gitDir = resolve(cwd, pointer.slice('gitdir: '.length));
    } else return undefined;
  }
  const commondir = join(gitDir, 'commondir');
  const stats = files.note(commondir);
  if (stats === undefined) return { gitDir, commonDir: gitDir };
  const common = stats.isFile() ? readSmall(commondir)?.replace(/[\r\n]+$/, '') : undefined;
  if (common === undefined || common === '' || common.includes('\n')) return undefined;
  return { gitDir, commonDir: resolve(gitDir, common) };
}

/** A file's text when it is at most 4096 characters (a git pointer file); undefined otherwise or unreadable. */
export function readSmall(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    return text.length <= 4096 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The person's config files git reads in this environment: global (or GIT_CONFIG_GLOBAL) and system (the usual place, or GIT_CONFIG_SYSTEM; a system file elsewhere is noted from the listing's origins). */
export function personsFiles(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const home = env.HOME ?? homedir();
  const out: string[] = [];
  if (env.GIT_CONFIG_GLOBAL !== undefined) out.push(resolve(cwd, env.GIT_CONFIG_GLOBAL));
  else out.push(join(home, '.gitconfig'), join(env.XDG_CONFIG_HOME || join(home, '.config'), 'git', 'config'));
  // Noted whether or not GIT_CONFIG_NOSYSTEM is set (one more file noted never keeps a stale verdict).
  out.push(env.GIT_CONFIG_SYSTEM !== undefined ? resolve(cwd, env.GIT_CONFIG_SYSTEM) : '/etc/gitconfig');
  return out;
}
