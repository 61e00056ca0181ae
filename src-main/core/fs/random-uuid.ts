// A random UUID (version 4) from the system's random device, read directly: node:crypto's
// randomUUID loads the crypto module first, 3–6 ms of a short command's start (`deepdesk run`
// names its thread before it asks the host). Where there is no such device (Windows), node:crypto's.

import { closeSync, openSync, readSync } from 'node:fs';

export function randomUuid(): string {
  const bytes = Buffer.alloc(16);
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      if (readSync(fd, bytes, 0, 16, null) !== 16) throw new Error('a short read');
    } finally {
      closeSync(fd);
    }
  } catch {
    return process.getBuiltinModule('node:crypto').randomUUID();
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
