// The PostgreSQL store answers from its own SQL (LIKE / ILIKE on trigram indexes, path
// ranges in COLLATE "C"); the SQLite store from FTS5 and its ranges. On one set of hostile
// names and contents, they must give exactly the same results: grep, glob, ls, read, stat
// shapes, the window's listPage and searchPage (every page), and the same error texts.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileInfo } from '../protocol';
import type { StorePage } from './store-query';
import { StoreBackend } from './store';
import { PostgresStoreBackend } from './store-postgres';
import { createTestDatabase, type TestDatabase } from './testing/postgres';
import { hostileFiles } from './__fixtures__/hostile-store';

let dir: string;
let sqlite: StoreBackend;
let database: TestDatabase;
let postgres: PostgresStoreBackend;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-pg-parity-'));
  sqlite = new StoreBackend({ db: path.join(dir, 'deepdesk.db'), namespace: 'memories' });
  database = await createTestDatabase();
  postgres = new PostgresStoreBackend({ url: database.url, namespace: 'memories' });
  const files = hostileFiles();
  // Extra texts for the window's search: non-ASCII case pairs, wildcards, a text with NUL late.
  const extra: [string, string][] = [
    ['/search/été.md', 'Été à Paris\nÉCOLE\n'], ['/search/omega.md', 'Ωmega ωMEGA\n'], ['/search/under.md', 'snake_case_name\nsnakeXcaseYname\n'],
    ['/search/late-nul.md', `${'x'.repeat(9000)}\0 needle after NUL\nneedle`], ['/search/back\\slash.md', 'a\\b c\\\\d\n'],
  ];
  files.push(...extra.map(([p, text]) => ({ path: p, content: new TextEncoder().encode(text) })));
  for (const backend of [sqlite, postgres]) expect((await backend.uploadFiles(files)).map((r) => r.error)).toEqual(files.map(() => undefined));
  // Writes through the text tools too (text holding NUL early, CRLF kept on overwrite).
  for (const backend of [sqlite, postgres]) {
    expect((await backend.write('/tools/nul-early.md', 'needle\0x\nneedle')).error).toBeUndefined();
    expect((await backend.write('/tools/crlf.md', 'one\r\ntwo\r\n')).error).toBeUndefined();
    expect((await backend.write('/tools/crlf.md', 'three\nfour\n')).error).toBeUndefined();
  }
});
afterAll(async () => {
  sqlite.close();
  await postgres.close();
  await database.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const infos = (list: FileInfo[] | undefined) => list?.map((f) => ({ path: f.path, isDir: f.isDir ?? false, size: f.size }));
const FOLDERS = ['/', '/a', '/dir', '/dir/sub', '/é', '/sub', '/a0', '/nope', '/a/b.md', '/.git', '/search', '/tools'];

async function allPages(next: (after: string) => Promise<StorePage>): Promise<{ pages: number; files: unknown[] }> {
  const files: unknown[] = [];
  let pages = 0;
  for (let after: string | null = ''; after !== null; pages++) {
    const page: StorePage = await next(after);
    files.push(...page.files.map((f) => ({ path: f.path, size: f.size, line: f.line, by: f.modifiedBy })));
    after = page.next;
  }
  return { pages, files };
}

describe('PostgresStoreBackend gives the SQLite store\'s results on hostile names and contents', () => {
  it('ls, stat and read (text, NUL, binary, missing, folders)', async () => {
    for (const folder of FOLDERS) {
      const [a, b] = await Promise.all([postgres.ls(folder), sqlite.ls(folder)]);
      expect([folder, infos(a.entries), a.error]).toEqual([folder, infos(b.entries), b.error]);
      const [s, t] = await Promise.all([postgres.stat(folder), sqlite.stat(folder)]);
      expect([folder, s.info?.path, s.info?.isDir, s.info?.size, s.error]).toEqual([folder, t.info?.path, t.info?.isDir, t.info?.size, t.error]);
    }
    for (const file of ['/a/b.md', '/binary.bin', '/nul.md', '/tools/nul-early.md', '/tools/crlf.md', '/search/late-nul.md', '/dir', '/nope.md', '/emoji 😀.md']) {
      const [a, b] = await Promise.all([postgres.read(file), sqlite.read(file)]);
      const strip = (r: typeof a) => ({ ...r, fileData: r.fileData && { ...r.fileData, createdAt: undefined, modifiedAt: undefined } });
      expect([file, strip(a)]).toEqual([file, strip(b)]);
      const [x, y] = await Promise.all([postgres.readRaw(file), sqlite.readRaw(file)]);
      expect([file, x.error, x.data && Buffer.from(x.data).toString('hex')]).toEqual([file, y.error, y.data && Buffer.from(y.data).toString('hex')]);
    }
  });

  it('glob', async () => {
    const patterns = ['*', '**', '**/*', '*.md', '**/*.txt', 'dir/*.md', '/dir/**/*.md', 'a/**', '.git/*', '**/.git/*', 'é/*', '[abc].md', '\\[abc\\].md', '{dir,a}/**', 'nope/*', 'sp ace/*', 'a0', '..', '*/'];
    for (const folder of FOLDERS) {
      for (const pattern of patterns) {
        const [a, b] = await Promise.all([postgres.glob(pattern, folder), sqlite.glob(pattern, folder)]);
        expect([folder, pattern, infos(a.matches), a.error]).toEqual([folder, pattern, infos(b.matches), b.error]);
      }
    }
  });

  it('grep, case-sensitive and literal, with and without a glob, truncated alike', async () => {
    const patterns = [
      'needle', 'NEEDLE', 'Needle', 'eedl', '"', '"stop"', '%', '50%', '_', 'e_c', 'AND', 'NEAR(a b)', '*', 'a**b', 'a', 'ab', 'x', 'é', 'É',
      'café', 'CAFÉ', '😀', 'smile 😀', "O'Brien", '\r', 'line\r', 'haystack\nNEEDLE', 'zzz', '\\', 'a\\b', '\\\\', '\0', 'needle\0', 'after NUL', '\uFFFD',
    ];
    for (const folder of ['/', '/a', '/dir', '/sub', '/a/b.md', '/nope', '/nul.md', '/search', '/tools']) {
      for (const pattern of patterns) {
        for (const glob of [undefined, '*.md', 'dir/**']) {
          for (const max of [1000, 3]) {
            const [a, b] = await Promise.all([postgres.grep(pattern, folder, glob, max), sqlite.grep(pattern, folder, glob, max)]);
            expect([folder, pattern, glob, max, a]).toEqual([folder, pattern, glob, max, b]);
          }
        }
      }
    }
  });

  it('listPage: every page, in code-point path order, at any page size', async () => {
    for (const limit of [1, 7, 100]) {
      const [a, b] = await Promise.all([allPages((after) => postgres.listPage(after, limit)), allPages((after) => sqlite.listPage(after, limit))]);
      expect([limit, a]).toEqual([limit, b]);
    }
  });

  it('searchPage: the same hits, lines and cursors, whatever the case, for long and short queries', async () => {
    const queries = [
      'needle', 'NEEDLE', 'eed', 'ÉTÉ', 'été', 'é', 'É', 'école', 'café', 'CAFÉ', 'ωm', 'ΩMEGA', '😀', 'smile 😀', '"stop"', '%', '50%', '_', '_case_',
      'a', 'ab', 'x', 'zzz', '.md', 'md', 'dir', 'DIR/SUB', 'near(', "'", "o'brien", '\\', 'a\\b', 'after nul', 'and', 'ü', '\0', 'nul\0', '\0 needle',
    ];
    for (const query of queries) {
      for (const limit of [2, 100]) {
        const [a, b] = await Promise.all([
          allPages((after) => postgres.searchPage(query, after, limit)),
          allPages((after) => sqlite.searchPage(query, after, limit)),
        ]);
        expect([query, limit, a]).toEqual([query, limit, b]);
      }
    }
  });

  it('edit and delete give the same results and errors', async () => {
    const cases: [string, (s: StoreBackend | PostgresStoreBackend) => Promise<unknown>][] = [
      ['edit', (s) => s.edit('/tools/crlf.md', 'three', 'THREE')],
      ['edit missing text', (s) => s.edit('/tools/crlf.md', 'nope', 'x')],
      ['edit ambiguous', (s) => s.edit('/a/b.md', 'e', 'E')],
      ['edit binary', (s) => s.edit('/binary.bin', 'e', 'E')],
      ['edit NUL text', (s) => s.edit('/tools/nul-early.md', 'x', 'y')],
      ['edit folder', (s) => s.edit('/dir', 'x', 'y')],
      ['write over a folder', (s) => s.write('/dir', 'x')],
      ['write below a file', (s) => s.write('/a/b.md/c.md', 'x')],
      ['delete folder', (s) => s.delete('/dir')],
      ['delete root', (s) => s.delete('/')],
      ['delete missing', (s) => s.delete('/nope.md')],
      ['delete', (s) => s.delete('/b.md')],
      ['upload over a folder', (s) => s.uploadFiles([{ path: '/dir', content: new Uint8Array([1]) }, { path: '../x', content: new Uint8Array([1]) }])],
      ['download', (s) => s.downloadFiles(['/dir', '/nope', '/a/b.md', '/../x'])],
    ];
    for (const [name, run] of cases) {
      const [a, b] = [await run(postgres), await run(sqlite)];
      expect([name, a]).toEqual([name, b]);
    }
    const [a, b] = await Promise.all([postgres.readRaw('/tools/crlf.md'), sqlite.readRaw('/tools/crlf.md')]);
    expect(Buffer.from(a.data!).toString()).toBe(Buffer.from(b.data!).toString());
  });
});
