// A restore's operations (restore.ts plans them, a FolderSource does them) and how the local
// folder does them: each through no-follow.ts, never through a link in a parent folder.

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ThroughLinkError, mkdirAt, replaceAt, rmdirAt, unlinkAt } from '../fs/no-follow';
import { errnoOf } from '../fs/errno';

export type RestoreOp =
  /** Removes a file or a link (the link itself). */
  | { op: 'unlink'; rel: string }
  /** Removes an empty folder. */
  | { op: 'rmdir'; rel: string }
  /** Makes a folder with `mode` (missing parents too); `replace`: a file or link in its place goes first. */
  | { op: 'mkdir'; rel: string; mode: number; replace: boolean }
  /** Puts a file (or a link, `content` its target) via a temp name renamed over the path; `replaceFolder`: an empty folder in its place goes first. */
  | { op: 'put'; rel: string; type: 'f' | 'l'; content: Buffer; mode: number; replaceFolder: boolean };

/**
 * How an operation went: 'ok'; 'link' (a parent folder is, or became, a link: refused);
 * 'ENOENT' (nothing there); 'ENOTEMPTY' (a folder someone filled); else why, for the person.
 */
export type RestoreOpResult = 'ok' | 'link' | 'ENOENT' | 'ENOTEMPTY' | (string & {});

/** Does `ops` in order on the local folder `root`. */
export function applyRestoreLocally(root: string, ops: readonly RestoreOp[]): RestoreOpResult[] {
  return ops.map((op) => {
    try {
      if (op.op === 'unlink') unlinkAt(root, op.rel);
      else if (op.op === 'rmdir') rmdirAt(root, op.rel);
      else if (op.op === 'mkdir') mkdirAt(root, op.rel, op.mode, op.replace);
      else replaceAt(root, op.rel, op.type, op.content, op.mode, op.replaceFolder, randomBytes(6).toString('hex'));
      return 'ok';
    } catch (err) {
      if (err instanceof ThroughLinkError) return 'link';
      const code = errnoOf(err);
      if (code === 'ENOENT' && (op.op === 'unlink' || op.op === 'rmdir')) return 'ENOENT';
      if (op.op === 'rmdir' && (code === 'ENOTEMPTY' || code === 'EEXIST')) return 'ENOTEMPTY';
      return err instanceof Error ? err.message.replace(root + path.sep, '') : String(err);
    }
  });
}
