import { accessSync, constants, lstatSync, statSync } from 'node:fs';

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

/** Whether `path` is a folder (through links); false when nothing is there. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
