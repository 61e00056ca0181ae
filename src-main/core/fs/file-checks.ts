import { accessSync, constants, lstatSync } from 'node:fs';

/** Whether anything is at `path`, a dangling link included (the link itself is looked at). */
export function existsNoFollow(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether this process may run the file at `path`. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
