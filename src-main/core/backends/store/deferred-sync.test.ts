// DeferredSync (store-db.ts): while a run holds it, the connection commits without an fsync
// each; each release forces the WAL to the disk once, and the last one puts back an fsync per commit.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeferredSync, openDatabase } from './store-db';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-deferred-sync-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const FULL = 2;
const NORMAL = 1;

describe('DeferredSync', () => {
  it('commits without an fsync each while held, and syncs the WAL once per release', () => {
    const file = path.join(dir, 'deepdesk.db');
    const db = openDatabase(file);
    try {
      db.exec('CREATE TABLE t (v INTEGER)');
      const synced: string[] = [];
      const fsync = vi.spyOn(fs, 'fsyncSync');
      const sync = new DeferredSync(db);
      expect(db.pragma('synchronous', { simple: true })).toBe(FULL);
      const first = sync.hold();
      const second = sync.hold();
      expect(db.pragma('synchronous', { simple: true })).toBe(NORMAL);
      for (let i = 0; i < 5; i++) db.prepare('INSERT INTO t VALUES (?)').run(i);
      expect(fsync).not.toHaveBeenCalled();
      fsync.mockImplementation((fd) => void synced.push(fs.readlinkSync(`/proc/self/fd/${fd}`)));
      first();
      // The other run still goes: its commits stay deferred, the WAL was forced to the disk for this one.
      expect(synced).toContain(`${fs.realpathSync(file)}-wal`);
      expect(db.pragma('synchronous', { simple: true })).toBe(NORMAL);
      first();
      const before = synced.length;
      second();
      expect(synced.length).toBeGreaterThan(before);
      expect(synced.at(-1)).toBe(`${fs.realpathSync(file)}-wal`);
      expect(db.pragma('synchronous', { simple: true })).toBe(FULL);
    } finally {
      db.close();
    }
  });

  it('does nothing for a database without a file', () => {
    const db = openDatabase(':memory:');
    try {
      const fsync = vi.spyOn(fs, 'fsyncSync');
      const release = new DeferredSync(db).hold();
      db.exec('CREATE TABLE t (v INTEGER)');
      release();
      expect(fsync).not.toHaveBeenCalled();
      expect(db.pragma('synchronous', { simple: true })).toBe(FULL);
    } finally {
      db.close();
    }
  });
});
