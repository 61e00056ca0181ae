// File operations on a folder-relative path that never follow a symbolic link in a parent
// folder. Restore, Revert and Undo restore run as the person, outside the sandbox (SPEC §8);
// the agent cannot read `~/.ssh` or write `.git/hooks` itself, but it can make `x` a link to
// them, and a restore that writes `x/post-checkout` through plain `path.join(root, rel)`
// paths would install the hook for it. So every write, create, delete and read of the
// restore (and of the scans it relies on) goes through `inParent`, which reaches the path's
// parent folder without following any link and hands back a name for the last component
// inside that very folder.
//
// Mechanism, chosen per platform once (`walkMode`):
// - 'fd' (Linux, where /proc/self/fd works): an openat-like walk. The root is opened, then
//   each parent component is opened relative to the previous one as
//   `/proc/self/fd/<parentFd>/<name>` with O_DIRECTORY|O_NOFOLLOW (and O_PATH, so folders
//   without read permission can still be crossed). A link fails that open (ENOTDIR/ELOOP),
//   which becomes a ThroughLinkError. The final operation (mkdir, unlink, rmdir, symlink,
//   open O_CREAT|O_EXCL|O_NOFOLLOW, rename, lstat, read) is done on
//   `/proc/self/fd/<dirFd>/<name>`: the kernel resolves /proc/self/fd/N to the folder the fd
//   holds, not to whatever path now names it, so a link swapped in after the walk is never
//   followed. The worst a racing swap can do is move the folder we hold elsewhere (which
//   needs write access to wherever it goes, so the agent could have written there itself);
//   mutating operations then re-walk and report the path as going through a link.
// - 'lstat' (macOS, Windows, a Linux without /proc): Node has no openat/mkdirat, so every
//   component is lstat-checked right before the operation and the parent's realpath is
//   compared with the expected one right after it. This catches every link that is in
//   place when the restore runs; a link swapped in during the microseconds between the check
//   and the operation is only detected afterwards (reported, not prevented). The restore
//   holds the folder's checkpoint lock and the window refuses it while the thread runs, so
//   that window needs a process racing on purpose in the background.
//
// Paths are refused by name before any of this: a `.git` component anywhere (the project's
// repository or a nested one, any case) and anything that is not a plain relative path.

import fs from 'node:fs';
import path from 'node:path';
import { errnoOf } from './errno';

const C = fs.constants;
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;
/** O_PATH is not in fs.constants; its value is the generic one on these architectures. */
const O_PATH = process.platform === 'linux' && ['x64', 'arm64', 'arm', 'ia32', 'riscv64', 'loong64', 's390x', 'ppc64'].includes(process.arch) ? 0o10000000 : 0;
/** Opens a folder to walk through (never a link to one). */
const WALK_FLAGS = (O_PATH || C.O_RDONLY) | O_DIRECTORY | O_NOFOLLOW;
const TEMP_MARK = '.deepdesk-tmp-';

export const THROUGH_LINK = 'goes through a link';
export const INSIDE_GIT = 'inside .git: never restored';
export const NOT_IN_FOLDER = 'not a path inside the folder: never restored';

/** A parent folder of the path is a symbolic link (or became one while the operation ran). */
export class ThroughLinkError extends Error {
  readonly code = 'ETHROUGHLINK';
  /** `link`: the folder-relative path of the link. */
  constructor(rel: string, link: string) {
    super(`${rel}: ${THROUGH_LINK} (${link})`);
  }
}

export type WalkMode = 'fd' | 'lstat';

let forcedMode: WalkMode | null = null;
let probedMode: WalkMode | null = null;
let raceHook: ((rel: string, op: 'read' | 'change') => void) | null = null;

/** 'fd' where /proc/self/fd names an open folder (Linux), else 'lstat'. */
export function walkMode(): WalkMode {
  if (forcedMode) return forcedMode;
  if (probedMode === null) probedMode = probe();
  return probedMode;
}

function probe(): WalkMode {
  if (process.platform !== 'linux' || O_NOFOLLOW === 0 || O_DIRECTORY === 0) return 'lstat';
  let fd: number | undefined;
  try {
    fd = fs.openSync('/', WALK_FLAGS);
    const viaProc = fs.statSync(`/proc/self/fd/${fd}/.`);
    const held = fs.fstatSync(fd);
    return viaProc.ino === held.ino && viaProc.dev === held.dev ? 'fd' : 'lstat';
  } catch {
    return 'lstat';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Tests: run with one mechanism (null: the platform's). */
export function setWalkModeForTests(mode: WalkMode | null): void {
  forcedMode = mode;
}

/** Tests: called after the parents were reached and before the operation on the last component ('change': one that writes, creates or deletes). */
export function setRaceHookForTests(hook: ((rel: string, op: 'read' | 'change') => void) | null): void {
  raceHook = hook;
}

/**
 * Why `rel` is never touched by a restore, from its name alone: a `.git` component (any
 * repository, any case), or not a plain folder-relative path. Null when the name is fine.
 */
export function refusedByName(rel: string): string | null {
  if (rel === '' || rel.startsWith('/') || rel.includes('\0')) return NOT_IN_FOLDER;
  const parts = rel.split('/');
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..') return NOT_IN_FOLDER;
    if (path.sep === '\\' && (part.includes('\\') || part.includes(':'))) return NOT_IN_FOLDER;
  }
  if (parts.some((part) => part.toLowerCase() === '.git')) return INSIDE_GIT;
  return null;
}

/**
 * The first parent folder of `rel` (folder-relative) that is a symbolic link, or null when
 * none is (a missing parent, or a file in the way, is not a link). Where the restore plans;
 * the operations themselves check again as they go.
 */
export function linkedParent(root: string, rel: string): string | null {
  const parts = rel.split('/');
  let abs = root;
  for (let i = 0; i < parts.length - 1; i++) {
    abs = path.join(abs, parts[i]!);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch {
      return null;
    }
    if (st.isSymbolicLink()) return parts.slice(0, i + 1).join('/');
    if (!st.isDirectory()) return null;
  }
  return null;
}

export interface InParentOptions {
  /** Create missing parent folders (never through a link). */
  create?: boolean;
  /**
   * `fn` changes something: afterwards, make sure the parents still lead to the folder it
   * acted in (the lstat walk checks after reads too, so that what was read is thrown away).
   */
  verify?: boolean;
}

/**
 * Runs `fn` with a path naming `rel`'s last component inside its parent folder, reached
 * without following a link in any parent. Throws ThroughLinkError when a parent is a link,
 * and the errno error (ENOENT, ENOTDIR…) when a parent is missing or not a folder. `fn`'s
 * path is valid only while it runs; operations on it do not follow a link swapped into a
 * parent meanwhile ('fd' mode). The last component itself is not followed by the helpers
 * below (unlink, rename and lstat act on a link itself).
 */
export function inParent<T>(root: string, rel: string, options: InParentOptions, fn: (at: string) => T): T {
  const refused = refusedByName(rel);
  if (refused === NOT_IN_FOLDER) throw Object.assign(new Error(`${rel}: ${NOT_IN_FOLDER}`), { code: 'EINVAL' });
  const parts = rel.split('/');
  const name = parts.pop()!;
  const parentRel = parts.join('/');
  return walkMode() === 'fd' ? inParentFd(root, rel, parts, name, parentRel, options, fn) : inParentLstat(root, rel, parts, name, parentRel, options, fn);
}

function inParentFd<T>(root: string, rel: string, parts: string[], name: string, parentRel: string, options: InParentOptions, fn: (at: string) => T): T {
  let fd = fs.openSync(root, WALK_FLAGS);
  try {
    for (let i = 0; i < parts.length; i++) {
      const next = openFolderAt(fd, parts[i]!, options.create === true, rel, parts.slice(0, i + 1).join('/'));
      fs.closeSync(fd);
      fd = next;
    }
    raceHook?.(rel, options.verify ? 'change' : 'read');
    const prefix = `/proc/self/fd/${fd}/`;
    let result: T;
    try {
      result = fn(prefix + name);
    } catch (err) {
      throw withPath(err, prefix, parentRel);
    }
    if (options.verify) verifyFd(root, rel, parts, fd);
    return result;
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens folder `name` inside the folder `dirFd` holds, never a link; creates it when asked. */
function openFolderAt(dirFd: number, name: string, create: boolean, rel: string, soFar: string): number {
  const at = `/proc/self/fd/${dirFd}/${name}`;
  for (let attempt = 0; ; attempt++) {
    try {
      return fs.openSync(at, WALK_FLAGS);
    } catch (err) {
      const code = errnoOf(err);
      if (code === 'ENOENT' && create && attempt < 3) {
        try {
          fs.mkdirSync(at);
        } catch (made) {
          if (errnoOf(made) !== 'EEXIST') throw withPath(made, `/proc/self/fd/${dirFd}/`, parentOf(soFar));
        }
        continue;
      }
      if (code === 'ENOTDIR' || code === 'ELOOP') {
        if (isLink(at)) throw new ThroughLinkError(rel, soFar);
      }
      throw withPath(err, `/proc/self/fd/${dirFd}/`, parentOf(soFar));
    }
  }
}

/** The parents still lead, without a link, to the folder the operation acted in. */
function verifyFd(root: string, rel: string, parts: string[], heldFd: number): void {
  const held = fs.fstatSync(heldFd);
  let fd = fs.openSync(root, WALK_FLAGS);
  try {
    for (let i = 0; i < parts.length; i++) {
      let next: number;
      try {
        next = openFolderAt(fd, parts[i]!, false, rel, parts.slice(0, i + 1).join('/'));
      } catch (err) {
        if (err instanceof ThroughLinkError) throw err;
        throw new ThroughLinkError(rel, parts.slice(0, i + 1).join('/'));
      }
      fs.closeSync(fd);
      fd = next;
    }
    const now = fs.fstatSync(fd);
    if (now.ino !== held.ino || now.dev !== held.dev) throw new ThroughLinkError(rel, parts.join('/'));
  } finally {
    fs.closeSync(fd);
  }
}

function inParentLstat<T>(root: string, rel: string, parts: string[], name: string, parentRel: string, options: InParentOptions, fn: (at: string) => T): T {
  const realRoot = fs.realpathSync(root);
  const check = (create: boolean): string => {
    let abs = realRoot;
    for (let i = 0; i < parts.length; i++) {
      abs = path.join(abs, parts[i]!);
      for (let attempt = 0; ; attempt++) {
        let st: fs.Stats | undefined;
        try {
          st = fs.lstatSync(abs);
        } catch (err) {
          if (errnoOf(err) !== 'ENOENT' || !create || attempt >= 3) throw withPath(err, realRoot + path.sep, '');
          try {
            fs.mkdirSync(abs);
          } catch (made) {
            if (errnoOf(made) !== 'EEXIST') throw withPath(made, realRoot + path.sep, '');
          }
          continue;
        }
        if (st.isSymbolicLink()) throw new ThroughLinkError(rel, parts.slice(0, i + 1).join('/'));
        if (!st.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a folder: ${parts.slice(0, i + 1).join('/')}`), { code: 'ENOTDIR' });
        break;
      }
    }
    return abs;
  };
  const parentAbs = check(options.create === true);
  raceHook?.(rel, options.verify ? 'change' : 'read');
  let result: T;
  try {
    result = fn(path.join(parentAbs, name));
  } catch (err) {
    throw withPath(err, parentAbs + path.sep, parentRel);
  }
  // Reads too: what was read through a link swapped in meanwhile is then thrown away.
  let real: string | null;
  try {
    real = fs.realpathSync(parentAbs);
  } catch {
    real = null;
  }
  if (real !== parentAbs) throw new ThroughLinkError(rel, parentRel);
  try {
    check(false);
  } catch (err) {
    throw err instanceof ThroughLinkError ? err : new ThroughLinkError(rel, parentRel);
  }
  return result;
}

// ---- The restore's operations -------------------------------------------------------------

/** The entry itself (a link is not followed), or undefined when it or a parent is missing. Throws ThroughLinkError. */
export function lstatAt(root: string, rel: string): fs.Stats | undefined {
  try {
    return inParent(root, rel, {}, (at) => fs.lstatSync(at));
  } catch (err) {
    if (err instanceof ThroughLinkError) throw err;
    const code = errnoOf(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** Removes a file or a link (the link itself). */
export function unlinkAt(root: string, rel: string): void {
  inParent(root, rel, { verify: true }, (at) => fs.unlinkSync(at));
}

/** Removes an empty folder (never a link to one: ENOTDIR). */
export function rmdirAt(root: string, rel: string): void {
  inParent(root, rel, { verify: true }, (at) => fs.rmdirSync(at));
}

/**
 * Makes `rel` a folder with `mode`, creating missing parents; a file or link in its place
 * is removed first when `replace` says so.
 */
export function mkdirAt(root: string, rel: string, mode: number, replace: boolean): void {
  inParent(root, rel, { create: true, verify: true }, (at) => {
    if (replace) {
      const st = lstatOrUndefined(at);
      if (st && !st.isDirectory()) fs.unlinkSync(at);
    }
    try {
      fs.mkdirSync(at);
    } catch (err) {
      if (errnoOf(err) !== 'EEXIST') throw err;
    }
    chmodFolder(at, mode);
  });
}

/**
 * Puts a file (`type` 'f', with `mode`) or a link (`type` 'l', `content` its target) at
 * `rel`: written to a temp name in the same folder, then renamed over the entry (which
 * replaces a link itself, never what it points to). Missing parents are created; a
 * folder in its place is removed first when `replaceFolder` says so (only if empty).
 */
export function replaceAt(root: string, rel: string, type: 'f' | 'l', content: Buffer, mode: number, replaceFolder: boolean, tempSuffix: string): void {
  inParent(root, rel, { create: true, verify: true }, (at) => {
    if (replaceFolder) {
      try {
        fs.rmdirSync(at);
      } catch (err) {
        if (errnoOf(err) !== 'ENOENT') throw err;
      }
    }
    replaceViaTemp(at, tempSuffix, (temp) => {
      if (type === 'l') {
        fs.symlinkSync(content, temp);
        return;
      }
      const fd = fs.openSync(temp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o600);
      try {
        let done = 0;
        while (done < content.length) done += fs.writeSync(fd, content, done, content.length - done);
        fs.fchmodSync(fd, mode);
      } finally {
        fs.closeSync(fd);
      }
    });
  });
}

/** Makes the new entry at a temp name beside `at` (with `make`), then renames it over `at`; the temp name never stays. */
function replaceViaTemp(at: string, tempSuffix: string, make: (temp: string) => void): void {
  const dir = at.slice(0, at.length - path.basename(at).length);
  const temp = `${dir}.${path.basename(at).slice(0, 100)}${TEMP_MARK}${tempSuffix}`;
  try {
    make(temp);
    fs.renameSync(temp, at);
  } catch (err) {
    try {
      fs.unlinkSync(temp);
    } catch {
      // Not made, or already renamed.
    }
    throw err;
  }
}

/**
 * Puts the file `source` (outside the folder) at `rel`, with `mode` and the source's times:
 * moved there when both are on one mount (no copy: a sparse file stays sparse), else copied
 * to a temp name in the same folder and renamed over the entry. Either way the entry itself
 * is replaced (a link there is replaced, never followed). Missing parents are created.
 */
export function placeFileAt(root: string, rel: string, source: string, mode: number, times: { atime: Date; mtime: Date }, tempSuffix: string): void {
  inParent(root, rel, { create: true, verify: true }, (at) => {
    try {
      fs.renameSync(source, at);
      return;
    } catch (err) {
      if (errnoOf(err) !== 'EXDEV') throw err;
    }
    replaceViaTemp(at, tempSuffix, (temp) => {
      fs.copyFileSync(source, temp, C.COPYFILE_EXCL);
      const fd = fs.openSync(temp, C.O_WRONLY | O_NOFOLLOW);
      try {
        fs.fchmodSync(fd, mode);
        fs.futimesSync(fd, times.atime, times.mtime);
      } finally {
        fs.closeSync(fd);
      }
    });
  });
}

/**
 * Renames `fromName`, a name in `rel`'s parent folder, over `rel` (a file or link is
 * replaced, never followed): one rename inside one folder, which allocates nothing.
 */
export function renameInParentAt(root: string, rel: string, fromName: string): void {
  if (fromName.includes('/') || fromName === '' || fromName === '.' || fromName === '..') throw Object.assign(new Error(`${fromName}: not a name`), { code: 'EINVAL' });
  inParent(root, rel, { verify: true }, (at) => fs.renameSync(path.join(path.dirname(at), fromName), at));
}

/** The names in the folder at `rel` (never through a link); empty when it is missing or not a folder. */
export function readdirAt(root: string, rel: string): string[] {
  try {
    return inParent(root, rel, {}, (at) => {
      // Opened without following: a link put in its place is not listed.
      const fd = fs.openSync(at, C.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      try {
        return fs.readdirSync(walkMode() === 'fd' ? `/proc/self/fd/${fd}` : at);
      } finally {
        fs.closeSync(fd);
      }
    });
  } catch (err) {
    if (err instanceof ThroughLinkError) throw err;
    return [];
  }
}

/** Removes whatever is at `rel`, a folder with everything in it, never following a link. */
export function removeTreeAt(root: string, rel: string): void {
  const st = lstatAt(root, rel);
  if (st === undefined) return;
  if (st.isDirectory()) {
    for (const name of readdirAt(root, rel)) removeTreeAt(root, `${rel}/${name}`);
    rmdirAt(root, rel);
  } else unlinkAt(root, rel);
}

/** chmod of a folder without following a link put in its place. */
function chmodFolder(at: string, mode: number): void {
  if (walkMode() === 'fd') {
    // /proc/self/fd/N of an O_PATH fd names the folder itself: the chmod cannot land elsewhere.
    const fd = fs.openSync(at, WALK_FLAGS);
    try {
      if (O_PATH !== 0) fs.chmodSync(`/proc/self/fd/${fd}`, mode);
      else fs.fchmodSync(fd, mode);
    } finally {
      fs.closeSync(fd);
    }
    return;
  }
  const st = fs.lstatSync(at);
  if (!st.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a folder`), { code: 'ENOTDIR' });
  fs.chmodSync(at, mode);
}

function lstatOrUndefined(at: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(at);
  } catch {
    return undefined;
  }
}

function isLink(at: string): boolean {
  return lstatOrUndefined(at)?.isSymbolicLink() === true;
}

/** A relative path's parent (`''` at the top). */
export function parentOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

/** Error messages name folder-relative paths, not /proc/self/fd/N or the real root. */
function withPath(err: unknown, prefix: string, parentRel: string): unknown {
  if (err instanceof Error && !(err instanceof ThroughLinkError)) {
    const replacement = parentRel === '' ? '' : parentRel + '/';
    err.message = err.message.split(prefix).join(replacement);
    const e = err as NodeJS.ErrnoException & { dest?: unknown };
    if (typeof e.path === 'string') e.path = e.path.split(prefix).join(replacement);
    if (typeof e.dest === 'string') e.dest = e.dest.split(prefix).join(replacement);
  }
  return err;
}
