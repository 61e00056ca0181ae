// A Unix socket's path must fit sun_path: 107 bytes on Linux, 103 on macOS (issue 94, item 9).
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { socketPathFits, socketPathLimit, socketTempDir } from './socket-path';

/** A path of exactly `bytes` bytes in `dir`. */
const ofLength = (dir: string, bytes: number): string => join(dir, 's'.repeat(bytes - dir.length - 1));

describe('a socket path', () => {
  it('fits up to 107 bytes on Linux and 103 on macOS', () => {
    expect(socketPathLimit('linux')).toBe(107);
    expect(socketPathLimit('darwin')).toBe(103);
    expect(socketPathFits(ofLength('/nowhere', 107), 'linux')).toBe(true);
    expect(socketPathFits(ofLength('/nowhere', 108), 'linux')).toBe(false);
    expect(socketPathFits(ofLength('/nowhere', 103), 'darwin')).toBe(true);
    expect(socketPathFits(ofLength('/nowhere', 104), 'darwin')).toBe(false);
  });

  // Past 108 bytes Node cuts the path short without a word: bound elsewhere, or EADDRINUSE.
  it.skipIf(process.platform !== 'linux')('of 107 bytes is bound at that path on Linux; one through a link is measured at its real path too', async () => {
    const dir = mkdtempSync('/tmp/deepdesk-socket-path-');
    try {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(ofLength(dir, 107), resolve));
      expect(lstatSync(ofLength(dir, 107)).isSocket()).toBe(true);
      server.close();
      const link = join(dir, 'l');
      mkdirSync(join(dir, 'a'.repeat(60)));
      symlinkSync(join(dir, 'a'.repeat(60)), link);
      expect(socketPathFits(join(link, 's'.repeat(40)), 'linux')).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is made in the temp folder when it fits there, else in /tmp (macOS TMPDIR is ~49 characters)', () => {
    const inside = join('deepdesk-runs-501', 'deepdesk-proxy-0.12345-XXXXXX', 'meter.sock');
    const macTemp = '/var/folders/3l/k2xk8w9s0_b5m5hzqpwnr5jw0000gn/T';
    expect(socketTempDir(inside, 'linux', '/tmp')).toBe('/tmp');
    expect(socketTempDir(inside, 'linux', '/home/ann/tmp')).toBe('/home/ann/tmp');
    expect(socketTempDir(inside, 'linux', `/home/ann/${'t'.repeat(110)}`)).toBe('/tmp');
    expect(Buffer.byteLength(join(macTemp, inside))).toBe(107);
    expect(socketTempDir(inside, 'linux', macTemp)).toBe(macTemp);
    expect(socketTempDir(inside, 'darwin', macTemp)).toBe('/tmp');
  });
});
