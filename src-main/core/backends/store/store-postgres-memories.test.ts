// A team's PostgreSQL store keeps the memories' scopes (SPEC §25, §13): each machine's
// MemoryBook over the shared database lists, reads and searches its project's memories and
// every project's global ones, never another project's.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MemoryBook } from '../../memories/memory-book';
import { openMemoryBook } from '../../memories/open-memory-book';
import { openDatabase } from './store-db';
import { POSTGRES_TABLE, PostgresStoreBackend } from './store-postgres';
import { createTestDatabase, type TestDatabase } from './testing/postgres';

let dir: string;
let database: TestDatabase;
const stores: PostgresStoreBackend[] = [];
const dbs: Database.Database[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-pg-memories-'));
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  for (const db of dbs) db.close();
  await database.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A machine of the team (its own data folder's SQLite for the records) working in `project`. */
function machine(name: string, project: string): Promise<MemoryBook> {
  const store = new PostgresStoreBackend({ url: database.url, namespace: 'memories' });
  const db = openDatabase(path.join(dir, `${name}.db`));
  stores.push(store);
  dbs.push(db);
  return openMemoryBook({ store, db, projectKey: project, review: () => 'person' });
}

const text = async (book: MemoryBook, inner: string) => {
  const raw = await book.person.readRaw(inner);
  return raw.data === undefined ? undefined : Buffer.from(raw.data).toString('utf8');
};

it("a project's memory is listed, read and searched in that project only; a global one in every project", async () => {
  const alpha = await machine('one', '/work/alpha');
  await alpha.write('/memories/build.md', 'alpha builds with make');
  await alpha.write('/memories/global/style.md', 'tabs, not spaces');
  expect(alpha.history('/memories/build.md').map((v) => [v.scope, v.version, v.status])).toEqual([['project:/work/alpha', 1, 'active']]);

  const beta = await machine('two', '/work/beta');
  expect((await beta.person.ls('/')).entries?.map((e) => e.path)).toEqual(['/global/']);
  expect(await text(beta, '/build.md')).toBeUndefined();
  expect((await beta.person.grep('alpha')).matches).toEqual([]);
  expect((await beta.person.glob('**/*.md')).matches?.map((m) => m.path)).toEqual(['/global/style.md']);
  expect(await text(beta, '/global/style.md')).toBe('tabs, not spaces');
  expect((await beta.storeOf(beta.projectScope).searchPage('alpha', '', 10)).files).toEqual([]);

  // The same project on another machine shares its memories.
  const alphaElsewhere = await machine('three', '/work/alpha');
  expect(await text(alphaElsewhere, '/build.md')).toBe('alpha builds with make');
  expect((await alphaElsewhere.person.ls('/')).entries?.map((e) => e.path)).toEqual(['/build.md', '/global/']);

  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const rows = await client.query<{ namespace: string; path: string }>(`SELECT namespace, path FROM ${POSTGRES_TABLE} ORDER BY namespace, path`);
    expect(rows.rows).toEqual([
      { namespace: 'memories', path: '/style.md' },
      { namespace: 'memories@project:/work/alpha', path: '/build.md' },
    ]);
  } finally {
    await client.end();
  }
});
