// Files only this user may read (the host's token, the Agent Protocol's key): 0600 from their
// creation and written whole beside their place first, so a reader never sees half of one.

import { linkSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/** Written whole or not at all, replacing what is there. */
export function writePrivateFile(path: string, content: string): void {
  const temp = privateTemp(path, content);
  try {
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** Written whole when there is no file at `path`; else left as it is (of two processes at once, the first one's stays). */
export function createPrivateFile(path: string, content: string): void {
  const temp = privateTemp(path, content);
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(temp, { force: true });
  }
}

function privateTemp(path: string, content: string): string {
  const temp = `${path}.${process.pid}.${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, content, { flag: 'wx', mode: 0o600 });
  return temp;
}
