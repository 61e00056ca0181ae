// The folder an editor's session works in (SPEC §14): the editor's cwd, an absolute path to a
// folder, and whether a stored thread is of it.

import { RequestError } from '@agentclientprotocol/sdk';
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** Whether a thread's stored folder is the session's folder (the same folder on disk, however named). */
export function sameFolder(stored: string, folder: string): boolean {
  if (stored === '') return false;
  if (stored === folder) return true;
  try {
    return realpathSync(stored) === realpathSync(folder);
  } catch {
    return false;
  }
}

/** The session's folder: the editor's cwd, which must be an absolute path to a folder. */
export function sessionFolder(cwd: string): string {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams(undefined, `cwd must be an absolute path (got '${cwd}')`);
  const folder = resolve(cwd);
  let isDir = false;
  try {
    isDir = statSync(folder).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw RequestError.invalidParams(undefined, `cwd is not a folder: ${folder}`);
  return folder;
}
