// Atomic file replacement: write a temp file next to the target, fsync it, rename it over
// the target. Readers see the old or the new content, never a half-written file.

import fsp from 'node:fs/promises';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { O_NOFOLLOW } from './fs-resolve';
import { isPathInside } from '../../fs/path-inside';
import { errnoOf } from '../../fs/errno';

const TEMP_MARK = '.deepdesk-tmp-';

export function tempNameFor(target: string): string {
  // Keep the name under NAME_MAX even for long file names.
  const base = path.basename(target).slice(0, 120);
  return path.join(path.dirname(target), `.${base}${TEMP_MARK}${randomBytes(6).toString('hex')}`);
}

/**
 * Replaces `target` with `data`. `mode` (permission bits) is applied to the new file,
 * typically the mode of the file being replaced; without it the process umask decides.
 * With `root`, the temp file is proven to sit in target's folder inside `root` before any
 * byte is written (a folder swapped for a symlink since the caller resolved `target`
 * throws OutsideRootError). The temp file is removed on any failure. Throws the
 * underlying fs error.
 */
export async function atomicWriteFile(target: string, data: Uint8Array, mode?: number, root: string | null = null): Promise<void> {
  const temp = tempNameFor(target);
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW;
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(temp, flags, 0o666);
    if (root !== null) await checkPlacement(handle, temp, root);
    if (mode !== undefined) await handle.chmod(mode & 0o7777);
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written);
      written += bytesWritten;
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fsp.rename(temp, target);
  } catch (err) {
    if (handle) await removeOpenTemp(handle, temp);
    else await fsp.rm(temp, { force: true }).catch(() => {});
    throw err;
  }
}

/**
 * Removes the temp file we hold open, wherever its path leads now: a folder swapped back
 * and forth may have put it elsewhere (outside the root), so it is unlinked by path until
 * the open file has no name left (or a bounded number of tries).
 */
async function removeOpenTemp(handle: fsp.FileHandle, temp: string): Promise<void> {
  try {
    const own = await handle.stat({ bigint: true });
    for (let attempt = 0; attempt < 2000; attempt++) {
      if ((await handle.stat({ bigint: true })).nlink === 0n) break;
      const there = await fsp.lstat(temp, { bigint: true }).catch(() => null);
      if (there !== null && there.dev === own.dev && there.ino === own.ino) await fsp.unlink(temp).catch(() => {});
      else await new Promise((done) => setImmediate(done));
    }
  } catch {
    await fsp.rm(temp, { force: true }).catch(() => {});
  } finally {
    await handle.close().catch(() => {});
  }
}

/** The open temp file lies in target's folder inside root (the kernel's name for it on Linux, else dev+ino). */
async function checkPlacement(handle: fsp.FileHandle, temp: string, root: string): Promise<void> {
  const dir = path.dirname(temp);
  if (process.platform === 'linux') {
    const opened = await fsp.readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (opened !== null) {
      if (path.dirname(opened) !== dir || !isPathInside(root, opened)) throw new OutsideRootError(dir);
      return;
    }
  }
  const realDir = await fsp.realpath(dir);
  if (!isPathInside(root, realDir) || realDir !== dir) throw new OutsideRootError(dir);
  const [opened, named] = await Promise.all([handle.stat({ bigint: true }), fsp.lstat(path.join(realDir, path.basename(temp)), { bigint: true })]);
  if (opened.dev !== named.dev || opened.ino !== named.ino) throw new OutsideRootError(dir);
}

export class NotADirectoryError extends Error {
  constructor(readonly real: string) {
    super('not a directory');
  }
}

export class OutsideRootError extends Error {
  constructor(readonly real: string) {
    super('outside root');
  }
}

/**
 * mkdir -p for `dir`, where every folder that exists or gets created must resolve inside
 * `root` (pass null to skip that check). Throws NotADirectoryError when a component is a
 * file, OutsideRootError when one resolves outside, or the underlying fs error.
 */
export async function makeDirsInside(root: string | null, dir: string): Promise<void> {
  let st: fs.Stats | undefined;
  try {
    st = await fsp.stat(dir);
  } catch (err) {
    // ENOTDIR: some ancestor is a file; the walk up finds and names it.
    if (errnoOf(err) !== 'ENOENT' && errnoOf(err) !== 'ENOTDIR') throw err;
  }
  if (st) {
    if (!st.isDirectory()) throw new NotADirectoryError(dir);
    await checkInside(root, dir);
    return;
  }
  const parent = path.dirname(dir);
  if (parent !== dir) await makeDirsInside(root, parent);
  try {
    await fsp.mkdir(dir);
  } catch (err) {
    if (errnoOf(err) !== 'EEXIST') throw err;
  }
  const after = await fsp.stat(dir);
  if (!after.isDirectory()) throw new NotADirectoryError(dir);
  await checkInside(root, dir);
}

async function checkInside(root: string | null, dir: string): Promise<void> {
  if (root === null) return;
  const real = await fsp.realpath(dir);
  if (!isPathInside(root, real)) throw new OutsideRootError(dir);
}
