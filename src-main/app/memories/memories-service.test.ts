// The same cases on both memories stores: local SQLite, and PostgreSQL shared by a team.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../../core/backends/store/memory-store-api';
import { MEMORIES_NAMESPACE } from '../../core/backends/store/memory-store-api';
import { compareCodePoints } from '../../core/backends/paths';
import { openDatabase, SHORT_QUERY_SCAN_ROWS, StoreBackend } from '../../core/backends/store/store';
import { POSTGRES_TABLE, PostgresStoreBackend } from '../../core/backends/store/store-postgres';
import { createTestDatabase, type TestDatabase } from '../../core/backends/store/testing/postgres';
import { MAX_MEMORY_PAGE, parseRequest, type MemoryPage, type Params } from '../contract';
import { MEMORY_AUTHOR_USER, MemoriesService } from './memories-service';

interface Opened {
  store: MemoryStore;
  /** Gives every memory the same modification time (a bulk import). */
  setAllModifiedAt(iso: string): Promise<void>;
  close(): Promise<void>;
}

let database: TestDatabase | undefined;
afterAll(async () => {
  await database?.drop();
});

const STORES: Record<string, () => Promise<Opened>> = {
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-memories-'));
    const db = openDatabase(join(dir, 'deepdesk.db'));
    return {
      store: new StoreBackend({ db, namespace: MEMORIES_NAMESPACE, author: MEMORY_AUTHOR_USER }),
      setAllModifiedAt: async (iso) => void db.prepare('UPDATE store_files SET modified_at = ?').run(iso),
      close: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  postgres: async () => {
    database ??= await createTestDatabase();
    const url = database.url;
    // A namespace per case: an empty store without a database per case.
    const namespace = `memories-${randomBytes(6).toString('hex')}`;
    const store = new PostgresStoreBackend({ url, namespace, author: MEMORY_AUTHOR_USER });
    return {
      store,
      setAllModifiedAt: async (iso) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`UPDATE ${POSTGRES_TABLE} SET modified_at = $1 WHERE namespace = $2`, [iso, namespace]).finally(() => client.end());
      },
      close: () => store.close(),
    };
  },
};

for (const [kind, openStore] of Object.entries(STORES)) {
  describe(`MemoriesService on ${kind}`, () => {
    let opened: Opened;
    let store: MemoryStore;
    let service: MemoriesService;

    beforeEach(async () => {
      opened = await openStore();
      store = opened.store;
      service = new MemoriesService(store, () => undefined);
    });
    afterEach(async () => {
      await opened.close();
    });

    async function paths(params: Params<'memories.list'>): Promise<string[]> {
      return (await service.list(params)).entries.map((m) => m.path);
    }

    /** Every page in turn, as the panel scrolls. */
    async function allPages(params: Params<'memories.list'>): Promise<MemoryPage[]> {
      const pages = [await service.list(params)];
      while (pages.at(-1)!.next !== null) pages.push(await service.list({ ...params, after: pages.at(-1)!.next! }));
      return pages;
    }

    async function writeMany(entries: [string, string][]): Promise<void> {
      await store.uploadFiles(entries.map(([path, text]) => ({ path, content: new TextEncoder().encode(text) })));
    }

    const names = (n: number, prefix = 'm'): string[] => Array.from({ length: n }, (_, i) => `/${prefix}-${String(i).padStart(n > 10_000 ? 5 : 4, '0')}.md`);

    it('searches without minding case, ASCII or not, and shows the matching line', async () => {
      await service.write('/memories/tax.md', '# Notes\nPrices include VAT at 21%.\n');
      await service.write('/memories/trip.md', 'Été à Paris\n');
      await service.write('/memories/other.md', 'nothing here\n');
      expect((await service.list({ query: 'vat' })).entries.map((m) => [m.path, m.snippet])).toEqual([['/memories/tax.md', 'Prices include VAT at 21%.']]);
      expect(await paths({ query: 'ÉTÉ' })).toEqual(['/memories/trip.md']);
      // A name match counts too.
      expect(await paths({ query: 'OTHER' })).toEqual(['/memories/other.md']);
    });

    it('records who wrote each memory last: a thread, or the person', async () => {
      const agent = store.withAuthor('thread-42');
      await agent.write('/prefs.md', 'tabs\n');
      await service.write('/memories/mine.md', 'x\n');
      const list = (await service.list()).entries;
      expect(list.map((m) => [m.path, m.modifiedBy])).toEqual([
        ['/memories/mine.md', 'user'],
        ['/memories/prefs.md', 'thread-42'],
      ]);
      expect(list.every((m) => typeof m.modifiedAt === 'string')).toBe(true);
      // The person's edit of the agent's memory makes it theirs.
      await service.write('/memories/prefs.md', 'spaces\n');
      expect((await service.list()).entries.find((m) => m.path === '/memories/prefs.md')?.modifiedBy).toBe('user');
    });

    it('pages through every memory once, in path order, even when all share one date', async () => {
      const all = [...names(250), '/a/deep/x.md', '/.hidden.md', '/é.md', '/Z.md'];
      await writeMany(all.map((p) => [p, `text of ${p}\n`]));
      await opened.setAllModifiedAt('2026-01-01T00:00:00.000Z');
      const pages = await allPages({ limit: 100 });
      expect(pages.map((p) => p.entries.length)).toEqual([100, 100, 54]);
      const listed = pages.flatMap((p) => p.entries.map((m) => m.path));
      expect(listed).toEqual(all.map((p) => `/memories${p}`).sort(compareCodePoints));
      expect(pages[0]!.next).toBe(listed[99]);
      // Asked again, a page is the same page.
      expect(await service.list({ limit: 100, after: pages[0]!.next! })).toEqual(pages[1]);
      expect(pages[0]!.entries[0]).toEqual({ path: listed[0], size: expect.any(Number), modifiedAt: '2026-01-01T00:00:00.000Z', modifiedBy: 'user' });
    });

    it('a memory added or removed between two pages is neither repeated nor skipped', async () => {
      await writeMany(names(30).map((p) => [p, 'x\n']));
      const first = await service.list({ limit: 10 });
      expect(first.next).toBe('/memories/m-0009.md');
      await service.write('/memories/a-new-before.md', 'x\n'); // before the cursor: belongs to a page already shown
      await service.write('/memories/m-0015b.md', 'x\n'); // after it: shows up in a later page
      await service.delete('/memories/m-0009.md'); // the cursor itself
      await service.delete('/memories/m-0012.md');
      const rest: string[] = [];
      for (let after = first.next; after !== null; ) {
        const page = await service.list({ limit: 10, after });
        rest.push(...page.entries.map((m) => m.path));
        after = page.next;
      }
      const expected = [...names(30).slice(10).filter((p) => p !== '/m-0012.md'), '/m-0015b.md'].map((p) => `/memories${p}`).sort();
      expect(rest).toEqual(expected);
    });

    it('finds a substring anywhere, case-insensitively, paged and limited', async () => {
      await writeMany([
        ...names(30, 'hit').map((p, i): [string, string] => [p, `line one\nsome HeLLo WoRLD ${i}\n`]),
        ...names(30, 'miss').map((p): [string, string] => [p, 'hello there, wor ld\n']),
      ]);
      const first = await service.list({ query: 'llo worl', limit: 12 });
      expect(first.entries).toHaveLength(12);
      expect(first.entries[0]).toMatchObject({ path: '/memories/hit-0000.md', snippet: 'some HeLLo WoRLD 0' });
      const pages = await allPages({ query: 'LLO WORL', limit: 12 });
      expect(pages.flatMap((p) => p.entries.map((m) => m.path))).toEqual(names(30, 'hit').map((p) => `/memories${p}`));
      expect(pages.every((p) => p.entries.length <= 12)).toBe(true);
    });

    it('answers one- and two-character queries, and ignores case there too', async () => {
      await writeMany([
        ['/x.md', 'has Q inside\n'],
        ['/y.md', 'has qz inside\n'],
        ['/z.md', 'nothing\n'],
        ['/é.md', 'rien\n'],
        ['/w.md', 'ÉCOLE\n'],
        ['/v.md', 'Ωmega\n'],
      ]);
      expect(await paths({ query: 'q' })).toEqual(['/memories/x.md', '/memories/y.md']);
      expect(await paths({ query: 'QZ' })).toEqual(['/memories/y.md']);
      expect(await paths({ query: 'é' })).toEqual(['/memories/w.md', '/memories/é.md']);
      expect(await paths({ query: 'ωM' })).toEqual(['/memories/v.md']);
      expect(await paths({ query: 'h', limit: 1 })).toEqual(['/memories/x.md']);
    });

    it('answers a short query over many memories in bounded steps that together find every hit', async () => {
      const all = names(SHORT_QUERY_SCAN_ROWS * 2 + 500);
      await writeMany(all.map((p, i) => [p, i === 5 || i === SHORT_QUERY_SCAN_ROWS * 2 + 100 ? 'has QZ\n' : 'plain\n']));
      const first = await service.list({ query: 'qz' });
      expect(first.entries.map((m) => m.path)).toEqual([`/memories${all[5]}`]);
      expect(first.next).toBe(`/memories${all[SHORT_QUERY_SCAN_ROWS - 1]}`);
      const pages = await allPages({ query: 'qz' });
      expect(pages.map((p) => p.entries.length)).toEqual([1, 0, 1]);
      expect(pages.flatMap((p) => p.entries.map((m) => m.path))).toEqual([`/memories${all[5]}`, `/memories${all[SHORT_QUERY_SCAN_ROWS * 2 + 100]}`]);
    });

    it('takes quotes, %, _, * and FTS words in a query literally', async () => {
      const texts: [string, string][] = [
        ['/quote.md', 'she said "stop" twice\n'],
        ['/percent.md', 'grew 50% in May\n'],
        ['/fifty.md', 'grew 50 percent in May\n'],
        ['/under.md', 'snake_case_name\n'],
        ['/under2.md', 'snakeXcaseYname\n'],
        ['/and.md', 'cats AND dogs\n'],
        ['/and2.md', 'cats and the dogs\n'],
        ['/star.md', 'a*b and a**b\n'],
        ['/near.md', 'NEAR(a b) is FTS syntax\n'],
        ['/apos.md', "it's O'Brien's\n"],
        ['/colon.md', 'content: {x} - y ^z\n'],
      ];
      await writeMany(texts);
      const cases: [string, string[]][] = [
        ['"stop"', ['/quote.md']],
        ['"', ['/quote.md']],
        ['50%', ['/percent.md']],
        ['%', ['/percent.md']],
        ['_case_', ['/under.md']],
        ['_', ['/under.md']],
        ['cats AND dogs', ['/and.md']],
        ['AND', ['/and.md', '/and2.md', '/star.md']],
        ['a*b', ['/star.md']],
        ['*', ['/star.md']],
        ['a**', ['/star.md']],
        ['NEAR(a b)', ['/near.md']],
        ['near', ['/near.md']],
        ["O'Brien", ['/apos.md']],
        ["'", ['/apos.md']],
        ['content: {x}', ['/colon.md']],
        ['- y ^', ['/colon.md']],
        ['OR', []],
      ];
      for (const [query, expected] of cases) expect([query, await paths({ query })]).toEqual([query, expected.map((p) => `/memories${p}`)]);
    });

    it('refuses a cursor that is not a memory path, and the contract caps a page', async () => {
      await expect(service.list({ after: '/memories/../../etc' })).rejects.toThrow();
      expect(() => parseRequest({ id: 1, method: 'memories.list', params: { limit: MAX_MEMORY_PAGE + 1 } })).toThrow(/limit/);
      expect(parseRequest({ id: 1, method: 'memories.list', params: { query: 'x', after: '/memories/a.md', limit: 50 } }).params).toEqual({ query: 'x', after: '/memories/a.md', limit: 50 });
    });
  });
}
