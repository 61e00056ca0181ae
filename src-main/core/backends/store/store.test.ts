// StoreBackend specifics: the database it opens, namespaces, the trigram index behind
// grep, range-based listings and persistence. Generic behaviour is in conformance/.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, runMigrations, StoreBackend } from './store';
import { STORE_MIGRATIONS } from './store-schema';

let tmp: string;
const open: { close(): void }[] = [];

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-store-'));
});
afterEach(() => {
  for (const o of open.splice(0)) o.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function sharedDb(): Database.Database {
  const db = openDatabase(path.join(tmp, 'nested', 'dir', 'deepdesk.db'));
  open.push(db);
  return db;
}

function store(namespace = 'memories', db: Database.Database | string = sharedDb()): StoreBackend {
  const backend = new StoreBackend({ db, namespace });
  open.push(backend);
  return backend;
}

const bytes = (s: string) => new TextEncoder().encode(s);
const grepPaths = async (b: StoreBackend, pattern: string, p = '/', glob?: string) =>
  ((await b.grep(pattern, p, glob)).matches ?? []).map((m) => `${m.path}:${m.line}`);

describe('openDatabase', () => {
  it('creates the folder and sets WAL, full sync, busy timeout and foreign keys', () => {
    const db = sharedDb();
    expect(fs.existsSync(path.join(tmp, 'nested', 'dir', 'deepdesk.db'))).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('migrates idempotently, and records other services’ migrations once', () => {
    const file = path.join(tmp, 'm.db');
    openDatabase(file).close();
    const db = openDatabase(file);
    open.push(db);
    let runs = 0;
    const migration = { id: 'test_things_v1', up: (d: Database.Database) => { runs++; d.exec('CREATE TABLE things (x)'); } };
    runMigrations(db, [migration]);
    runMigrations(db, [migration]);
    expect(runs).toBe(1);
    const ids = db.prepare('SELECT id FROM schema_migrations ORDER BY id').pluck().all();
    expect(ids).toEqual(['store_files_v1', 'store_files_v2_modified_by', 'store_files_v3_fts_folded_with_path', 'test_things_v1']);
  });

  it('migrates a database a StoreBackend is handed directly', async () => {
    const Sqlite = (await import('better-sqlite3')).default;
    const db = new Sqlite(path.join(tmp, 'plain.db'));
    open.push(db);
    const b = store('ns', db);
    expect((await b.write('/a.md', 'hello\n')).error).toBeUndefined();
    expect(await grepPaths(b, 'hello')).toEqual(['/a.md:1']);
  });

  it('rebuilds the trigram index of an older database case-insensitive, with paths, keeping grep exact', async () => {
    const file = path.join(tmp, 'old.db');
    const old = new Database(file);
    runMigrations(old, STORE_MIGRATIONS.slice(0, 2));
    old.prepare(
      `INSERT INTO store_files (namespace, path, content, encoding, size, created_at, modified_at, version)
       VALUES ('memories', '/Tax Notes.md', 'Prices include VAT.', 'utf-8', 19, 'then', 'then', 1)`,
    ).run();
    old.close();
    const s = store('memories', file);
    expect((await s.searchPage('vat', '', 10)).files.map((f) => [f.path, f.line])).toEqual([['/Tax Notes.md', 'Prices include VAT.']]);
    expect((await s.searchPage('TAX NOT', '', 10)).files.map((f) => f.path)).toEqual(['/Tax Notes.md']);
    expect((await s.grep('VAT')).matches?.map((m) => m.path)).toEqual(['/Tax Notes.md']);
    expect((await s.grep('vat')).matches).toEqual([]);
    expect((await s.grep('Tax')).matches).toEqual([]);
  });
});

describe('StoreBackend ownership and persistence', () => {
  it('persists across reopening the file, with the same stat version', async () => {
    const file = path.join(tmp, 'p', 'store.db');
    const first = new StoreBackend({ db: file, namespace: 'memories' });
    await first.write('/notes/a.md', 'remember this\n');
    await first.uploadFiles([{ path: '/img.png', content: Uint8Array.from([0x89, 0x50, 0, 1, 2]) }]);
    const before = await first.stat('/notes/a.md');
    first.close();

    const second = store('memories', file);
    expect((await second.read('/notes/a.md')).fileData?.content).toBe('remember this');
    expect((await second.stat('/notes/a.md')).version).toBe(before.version);
    expect(Array.from((await second.readRaw('/img.png')).data!)).toEqual([0x89, 0x50, 0, 1, 2]);
    expect(await grepPaths(second, 'remember')).toEqual(['/notes/a.md:1']);
  });

  it('close() leaves a shared database open', async () => {
    const db = sharedDb();
    const b = new StoreBackend({ db, namespace: 'x' });
    b.close();
    expect(db.open).toBe(true);
  });

  it('changes the version on every write and on delete + re-create', async () => {
    const b = store();
    await b.write('/v.md', 'one');
    const v1 = (await b.stat('/v.md')).version;
    await b.write('/v.md', 'two');
    const v2 = (await b.stat('/v.md')).version;
    await b.delete('/v.md');
    await b.write('/v.md', 'two');
    const v3 = (await b.stat('/v.md')).version;
    expect(new Set([v1, v2, v3]).size).toBe(3);
  });
});

describe('StoreBackend namespaces', () => {
  it('isolate files completely in a shared database', async () => {
    const db = sharedDb();
    const a = store('alpha', db);
    const b = store('beta', db);
    await a.write('/same.md', 'alpha secret\n');
    await a.write('/only-a/x.md', 'alpha only\n');
    await b.write('/same.md', 'beta text\n');

    expect((await a.read('/same.md')).fileData?.content).toBe('alpha secret');
    expect((await b.read('/same.md')).fileData?.content).toBe('beta text');
    expect((await b.ls('/')).entries?.map((e) => e.path)).toEqual(['/same.md']);
    expect((await b.ls('/only-a')).error).toBeTruthy();
    expect((await b.read('/only-a/x.md')).error).toBeTruthy();
    expect(await grepPaths(b, 'alpha')).toEqual([]);
    expect(await grepPaths(b, 'al')).toEqual([]);
    expect((await b.glob('**/*.md')).matches?.map((m) => m.path)).toEqual(['/same.md']);

    await b.delete('/same.md');
    expect((await a.read('/same.md')).fileData?.content).toBe('alpha secret');
    expect(await grepPaths(a, 'alpha')).toEqual(['/only-a/x.md:1', '/same.md:1']);
  });
});

describe('StoreBackend grep', () => {
  it('finds long (indexed) and short (instr) patterns, case-sensitively', async () => {
    const b = store();
    await b.write('/a.md', 'Hello World\nhello world\nxyz\n');
    await b.write('/b.md', 'nothing here\n');
    expect(await grepPaths(b, 'Hello')).toEqual(['/a.md:1']);
    expect(await grepPaths(b, 'hello')).toEqual(['/a.md:2']);
    expect(await grepPaths(b, 'He')).toEqual(['/a.md:1']);
    expect(await grepPaths(b, 'y')).toEqual(['/a.md:3']);
    expect(await grepPaths(b, 'o W')).toEqual(['/a.md:1']);
    expect(await grepPaths(b, 'here')).toEqual(['/b.md:1']);
    expect(await grepPaths(b, 'world\nxyz')).toEqual([]);
  });

  it('treats FTS and LIKE syntax literally: quotes, %, _, *, operators', async () => {
    const b = store();
    await b.write('/q.md', [
      'say "hi" now',
      '100% done',
      'snake_case_name',
      'glob *.md here',
      'a AND b',
      'NEAR(x y)',
      'col:umn ^start -minus',
      "it's",
      '50x done',
      'snakeXcase',
    ].join('\n'));
    const lines = async (pattern: string) => (await b.grep(pattern, '/')).matches?.map((m) => m.line);
    expect(await lines('"hi"')).toEqual([1]);
    expect(await lines('"')).toEqual([1]);
    expect(await lines('y "h')).toEqual([1]);
    expect(await lines('0%')).toEqual([2]);
    expect(await lines('100%')).toEqual([2]);
    expect(await lines('e_c')).toEqual([3]);
    expect(await lines('_')).toEqual([3]);
    expect(await lines('*.md')).toEqual([4]);
    expect(await lines('*')).toEqual([4]);
    expect(await lines('AND')).toEqual([5]);
    expect(await lines('NEAR(')).toEqual([6]);
    expect(await lines('col:umn ^start -minus')).toEqual([7]);
    expect(await lines("t's")).toEqual([8]);
  });

  it('matches unicode text, short and long, and sorts paths by code point', async () => {
    const b = store();
    await b.write('/ü.md', 'Grüße aus Köln\n');
    await b.write('/😀.md', 'emoji 😀😃 here\n');
    await b.write('/\uFF61.md', '日本語のテキスト here\n');
    await b.write('/z.md', 'Ünïcödé\n');
    expect(await grepPaths(b, 'üß')).toEqual(['/ü.md:1']);
    expect(await grepPaths(b, 'Grüße')).toEqual(['/ü.md:1']);
    expect(await grepPaths(b, 'ü')).toEqual(['/ü.md:1']);
    expect(await grepPaths(b, 'Ü')).toEqual(['/z.md:1']);
    expect(await grepPaths(b, '😀😃')).toEqual(['/😀.md:1']);
    expect(await grepPaths(b, '日本')).toEqual(['/\uFF61.md:1']);
    expect(await grepPaths(b, '本語のテ')).toEqual(['/\uFF61.md:1']);
    // U+FF61 sorts before U+1F600 by code point, though not by UTF-16 unit.
    expect(await grepPaths(b, 'here')).toEqual(['/\uFF61.md:1', '/😀.md:1']);
    expect(await grepPaths(b, 're')).toEqual(['/\uFF61.md:1', '/😀.md:1']);
    expect((await b.glob('*.md')).matches?.map((m) => m.path)).toEqual(['/z.md', '/ü.md', '/\uFF61.md', '/😀.md']);
  });

  it('keeps the index in step with edits, overwrites, deletes and binary uploads', async () => {
    const db = sharedDb();
    const b = store('memories', db);
    await b.write('/m.md', 'old phrase\n');
    await b.edit('/m.md', 'old', 'new');
    expect(await grepPaths(b, 'old phrase')).toEqual([]);
    expect(await grepPaths(b, 'new phrase')).toEqual(['/m.md:1']);
    await b.write('/m.md', 'rewritten\n');
    expect(await grepPaths(b, 'new phrase')).toEqual([]);
    expect(await grepPaths(b, 'rewritten')).toEqual(['/m.md:1']);
    await b.uploadFiles([{ path: '/m.md', content: Uint8Array.from([0, 1, 2, 0x72, 0x65, 0x77]) }]);
    expect(await grepPaths(b, 'rewritten')).toEqual([]);
    expect(await grepPaths(b, 'rew')).toEqual([]);
    await b.write('/m.md', 'text again\n');
    expect(await grepPaths(b, 'text again')).toEqual(['/m.md:1']);
    await b.delete('/m.md');
    expect(await grepPaths(b, 'text again')).toEqual([]);
    expect(() => db.exec("INSERT INTO store_files_fts (store_files_fts) VALUES ('integrity-check')")).not.toThrow();
  });

  it('restricts to the path prefix, not to siblings that share it', async () => {
    const b = store();
    await b.write('/a/x.md', 'needle\n');
    await b.write('/a0.md', 'needle\n');
    await b.write('/a.md', 'needle\n');
    await b.write('/ab/y.md', 'needle\n');
    await b.write('/a/deep/z.txt', 'needle\n');
    expect(await grepPaths(b, 'needle', '/a')).toEqual(['/a/deep/z.txt:1', '/a/x.md:1']);
    expect(await grepPaths(b, 'ne', '/a')).toEqual(['/a/deep/z.txt:1', '/a/x.md:1']);
    expect(await grepPaths(b, 'needle', '/a', '*.md')).toEqual(['/a/x.md:1']);
    expect(await grepPaths(b, 'needle', '/a/x.md')).toEqual(['/a/x.md:1']);
  });

  it('greps 10,000 memories correctly and honours maxCount', async () => {
    const b = store();
    const files = [];
    for (let i = 0; i < 10_000; i++) {
      const special = i % 1000 === 7 ? `the rare token zq"x% sits here\n` : '';
      files.push({ path: `/topic${i % 40}/note-${String(i).padStart(5, '0')}.md`, content: bytes(`memory number ${i}\nuser prefers tabs\n${special}`) });
    }
    const uploaded = await b.uploadFiles(files);
    expect(uploaded.every((r) => r.error === undefined)).toBe(true);

    const rare = await b.grep('zq"x%', '/');
    const expected = files
      .filter((_, i) => i % 1000 === 7)
      .map((f) => ({ path: f.path, line: 3, text: 'the rare token zq"x% sits here' }))
      .sort((x, y) => (x.path < y.path ? -1 : 1));
    expect(rare).toEqual({ matches: expected, truncated: false });

    expect((await b.grep('number 4242\n', '/')).matches).toEqual([]);
    expect((await b.grep('number 4242', '/')).matches).toEqual([{ path: '/topic2/note-04242.md', line: 1, text: 'memory number 4242' }]);

    const common = await b.grep('tabs', '/', undefined, 25);
    expect(common.truncated).toBe(true);
    expect(common.matches).toHaveLength(25);
    expect(common.matches?.[0]).toEqual({ path: '/topic0/note-00000.md', line: 2, text: 'user prefers tabs' });

    const short = await b.grep('ta', '/topic3', undefined, 2000);
    expect(short.truncated).toBe(false);
    expect(short.matches).toHaveLength(250);
  });
});

describe('StoreBackend ls and glob', () => {
  it('lists implicit folders by range without mixing in look-alike siblings', async () => {
    const b = store();
    for (const p of ['/a/1.md', '/a/sub/deep/2.md', '/a/sub/3.md', '/a/sub2/4.md', '/a.b', '/a0', '/ab/5.md', '/a/z.md']) {
      await b.write(p, 'x');
    }
    expect((await b.ls('/a')).entries?.map((e) => e.path)).toEqual(['/a/1.md', '/a/sub/', '/a/sub2/', '/a/z.md']);
    expect((await b.ls('/')).entries?.map((e) => e.path)).toEqual(['/a.b', '/a/', '/a0', '/ab/']);
    expect((await b.ls('/a/sub')).entries?.map((e) => e.path)).toEqual(['/a/sub/3.md', '/a/sub/deep/']);
    await b.delete('/a/sub/deep/2.md');
    expect((await b.ls('/a/sub/deep')).error).toBe("Path '/a/sub/deep' not found");
  });

  it('globs paths without reading contents', async () => {
    const b = store();
    await b.write('/notes/a.md', 'x');
    await b.write('/notes/.hidden/b.md', 'x');
    await b.write('/c.txt', 'x');
    expect((await b.glob('*.md')).matches?.map((m) => m.path)).toEqual(['/notes/.hidden/b.md', '/notes/a.md']);
    expect((await b.glob('**/*.md')).matches?.map((m) => m.path)).toEqual(['/notes/a.md']);
    expect((await b.glob('/*.md', '/notes')).matches?.map((m) => m.path)).toEqual(['/notes/a.md']);
    expect((await b.glob('*', '/nope')).error).toBe("Path '/nope' not found");
  });
});
