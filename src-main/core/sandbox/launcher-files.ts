// The few files every local sandboxed command's launch reads (the seccomp filter, the empty
// unreadable file mounted over secrets), kept in ONE folder per user and reused by every
// Deepdesk process: a folder per process was left behind by each one killed before its exit
// handler ran, and /tmp filled with them (every run scans /tmp for sockets, policy.ts).
// The shared folder is used only when it is this user's own, private and no link; otherwise
// (someone else made the name first) a private mkdtemp folder of this process, as before.

import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedPrivateFolder } from '../fs/private-folder';

/** The folder holding the launch files (see above). */
export function launcherFilesDir(): string {
  return sharedPrivateFolder(`deepdesk-sandbox-${process.getuid?.() ?? 'user'}`, () => {
    const own = mkdtempSync(join(tmpdir(), 'deepdesk-sandbox-'));
    chmodSync(own, 0o700);
    process.once('exit', () => rmSync(own, { recursive: true, force: true }));
    return own;
  });
}

/**
 * A file of exactly `content` and `mode` in the folder, named by what it holds: an existing
 * one is reused only when it is a plain file with those bytes; otherwise a new one replaces
 * it atomically (written under a unique name, then renamed over).
 */
export function launcherFile(stem: string, content: Buffer, mode: number): string {
  const dir = launcherFilesDir();
  const name = `${stem}-${createHash('sha256').update(content).update(String(mode)).digest('hex').slice(0, 16)}`;
  const file = join(dir, name);
  if (holds(file, content, mode)) return file;
  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}`);
  writeFileSync(temp, content, { mode: 0o600, flag: 'wx' });
  chmodSync(temp, mode);
  renameSync(temp, file);
  return file;
}

function holds(file: string, content: Buffer, mode: number): boolean {
  try {
    const st = lstatSync(file);
    if (!st.isFile() || (st.mode & 0o7777) !== mode || st.size !== content.length) return false;
    if (content.length === 0) return true;
    return readFileSync(file).equals(content);
  } catch {
    return false;
  }
}
