import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEMORIES_NAMESPACE } from '../../core/backends/mounts';
import { openDatabase, StoreBackend } from '../../core/backends/store';
import { MEMORY_AUTHOR_USER, MemoriesService } from './memories-service';

let dir: string;
let db: Database.Database;
let service: MemoriesService;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-memories-'));
  db = openDatabase(join(dir, 'deepdesk.db'));
  service = new MemoriesService(new StoreBackend({ db, namespace: MEMORIES_NAMESPACE, author: MEMORY_AUTHOR_USER }), () => undefined);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('MemoriesService', () => {
  it('searches without minding case, ASCII or not, and shows the matching line', async () => {
    await service.write('/memories/tax.md', '# Notes\nPrices include VAT at 21%.\n');
    await service.write('/memories/trip.md', 'Été à Paris\n');
    await service.write('/memories/other.md', 'nothing here\n');
    expect((await service.list('vat')).map((m) => [m.path, m.snippet])).toEqual([['/memories/tax.md', 'Prices include VAT at 21%.']]);
    expect((await service.list('ÉTÉ')).map((m) => m.path)).toEqual(['/memories/trip.md']);
    // A name match counts too.
    expect((await service.list('OTHER')).map((m) => m.path)).toEqual(['/memories/other.md']);
  });

  it('records who wrote each memory last: a thread, or the person', async () => {
    const agent = new StoreBackend({ db, namespace: MEMORIES_NAMESPACE, author: 'thread-42' });
    await agent.write('/prefs.md', 'tabs\n');
    await service.write('/memories/mine.md', 'x\n');
    const list = await service.list();
    expect(list.map((m) => [m.path, m.modifiedBy])).toEqual([
      ['/memories/mine.md', 'user'],
      ['/memories/prefs.md', 'thread-42'],
    ]);
    expect(list.every((m) => typeof m.modifiedAt === 'string')).toBe(true);
    // The person's edit of the agent's memory makes it theirs.
    await service.write('/memories/prefs.md', 'spaces\n');
    expect((await service.list()).find((m) => m.path === '/memories/prefs.md')?.modifiedBy).toBe('user');
  });
});
