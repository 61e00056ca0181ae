// The changes a git mount records during a step, to commit them and, when the remote
// moved on meanwhile, to replay them on top of its new commits (git-mount.ts).

import { AsyncLocalStorage } from 'node:async_hooks';
import type { FilesystemBackend } from '../filesystem/filesystem';

/** The tool a change came from, as the commit message names it. */
export type MountTool = 'write_file' | 'edit_file' | 'delete' | 'upload_files';

export type MountOperation = { path: string; tag?: string } & (
  | { tool: 'write_file'; content: string }
  | { tool: 'edit_file'; oldString: string; newString: string; replaceAll: boolean }
  | { tool: 'delete' }
  | { tool: 'upload_files'; content: Uint8Array }
);

/** A change that could not be replayed on the remote's newer commits: it is in no commit. */
export interface FailedOperation {
  tool: MountTool;
  /** As the agent saw it (with the mount's prefix when one was given). */
  path: string;
  /** The tag the change was made under (mount-steps.ts: the tool call's id). */
  tag?: string;
  error: string;
}

const tags = new AsyncLocalStorage<string>();

/** Runs `fn` with every change it makes on a git mount recorded under `tag` (a tool call id). */
export function withMountOperationTag<T>(tag: string, fn: () => Promise<T>): Promise<T> {
  return tags.run(tag, fn);
}

export function currentOperationTag(): string | undefined {
  return tags.getStore();
}

/** Applies a recorded change to the work tree again: null, or why it no longer applies. */
export async function replayOperation(fs: FilesystemBackend, op: MountOperation): Promise<string | null> {
  switch (op.tool) {
    case 'write_file':
      return (await fs.write(op.path, op.content)).error ?? null;
    case 'edit_file':
      return (await fs.edit(op.path, op.oldString, op.newString, op.replaceAll)).error ?? null;
    case 'delete': {
      const res = await fs.delete(op.path);
      // Already gone on the remote: what the delete wanted.
      return res.error !== undefined && (await fs.stat(op.path)).error === undefined ? res.error : null;
    }
    case 'upload_files': {
      const [res] = await fs.uploadFiles([{ path: op.path, content: op.content }]);
      return res?.error !== undefined ? `upload failed (${res.error})` : null;
    }
  }
}

/** The path as the agent saw it: the mount's prefix put back. */
export function shownPath(prefix: string | undefined, path: string): string {
  return prefix === undefined || prefix === '' || prefix === '/' ? path : `${prefix.replace(/\/+$/, '')}${path}`;
}

const MAX_SUBJECT_OPERATIONS = 20;

/** `deepdesk: <tool> <path> <tool> <path>…`; a long step lists the rest in the body. */
export function commitMessage(ops: readonly MountOperation[], prefix: string | undefined): string {
  const parts = ops.map((op) => `${op.tool} ${shownPath(prefix, op.path)}`);
  if (parts.length <= MAX_SUBJECT_OPERATIONS) return `deepdesk: ${parts.join(' ')}`;
  const subject = `deepdesk: ${parts.slice(0, MAX_SUBJECT_OPERATIONS).join(' ')} … (${parts.length - MAX_SUBJECT_OPERATIONS} more)`;
  return `${subject}\n\n${parts.join('\n')}\n`;
}
