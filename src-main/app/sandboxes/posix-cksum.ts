// POSIX `cksum` (CRC-32, polynomial 0x04C11DB7, most significant bit first, with the length
// appended): what a sandbox's own `cksum` prints for a file, so that a folder's files are
// compared with the sandbox's without downloading them.

import fs from 'node:fs';

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    table[i] = c >>> 0;
  }
  return table;
})();

export function posixCksum(data: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < data.length; i++) crc = ((crc << 8) ^ TABLE[((crc >>> 24) ^ data[i]!) & 0xff]!) >>> 0;
  for (let n = data.length; n > 0; n = Math.floor(n / 256)) crc = ((crc << 8) ^ TABLE[((crc >>> 24) ^ (n & 0xff)) & 0xff]!) >>> 0;
  return ~crc >>> 0;
}

/** POSIX `cksum` of a file on disk, read in pieces: the host's memory stays flat whatever its size. */
export function posixCksumFile(abs: string): { crc: number; size: number } {
  const fd = fs.openSync(abs, 'r');
  // Only the bytes read into it are looked at: no need to clear it first.
  const buf = Buffer.allocUnsafe(1024 * 1024);
  let crc = 0;
  let size = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      for (let i = 0; i < n; i++) crc = ((crc << 8) ^ TABLE[((crc >>> 24) ^ buf[i]!) & 0xff]!) >>> 0;
      size += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  for (let n = size; n > 0; n = Math.floor(n / 256)) crc = ((crc << 8) ^ TABLE[((crc >>> 24) ^ (n & 0xff)) & 0xff]!) >>> 0;
  return { crc: ~crc >>> 0, size };
}
