// Where a Unix socket can be bound: its path must fit sun_path, 108 bytes with its NUL on Linux
// and 104 on macOS, whatever TMPDIR is (macOS's alone is ~49 characters; a longer one made
// listen() fail with EADDRINUSE).
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { realPathOf } from './real-path';

/** The longest path a Unix socket can be bound at on `platform`. */
export function socketPathLimit(platform: NodeJS.Platform = process.platform): number {
  return platform === 'linux' ? 107 : 103;
}

/** Whether a socket can be bound at `path`, as written and as its folder's real path spells it. */
export function socketPathFits(path: string, platform: NodeJS.Platform = process.platform): boolean {
  const real = join(realPathOf(dirname(path)), basename(path));
  return Math.max(Buffer.byteLength(path), Buffer.byteLength(real)) <= socketPathLimit(platform);
}

/** The temp folder (`temp`) when a socket at `inside` it fits, else /tmp (Windows has no such limit: `temp`). */
export function socketTempDir(inside: string, platform: NodeJS.Platform = process.platform, temp = tmpdir()): string {
  return platform === 'win32' || socketPathFits(join(temp, inside), platform) ? temp : '/tmp';
}
