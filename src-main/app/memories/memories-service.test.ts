// MemoriesService over a folder's MemoryBook (SPEC §25), on both memories stores: local
// SQLite, and PostgreSQL shared by a team (the records of versions are SQLite's in both).
// The list's pages and search, the project's and global scopes, versions, proposals, stale
// marks and moves, by what the service then returns.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../../core/backends/store/memory-store-api';
import { MEMORIES_NAMESPACE } from '../../core/backends/store/memory-store-api';
import { compareCodePoints } from '../../core/backends/paths';
import { openDatabase, SHORT_QUERY_SCAN_ROWS, StoreBackend } from '../../core/backends/store/store';
import { POSTGRES_TABLE, PostgresStoreBackend } from '../../core/backends/store/store-postgres';
import { createTestDatabase } from '../../core/backends/store/testing/postgres';
import type { MemoryBook } from '../../core/memories/memory-book';
import { openMemoryBook } from '../../core/memories/open-memory-book';
import type { MemoryWriter } from '../../core/memories/memory-types';
import { asMemoryWriter } from '../../core/memories/write-context';
import { ContractError, MAX_MEMORY_PAGE, parseRequest, type MemoryPage, type Params } from '../contract';
import { MemoriesService } from './memories-service';

interface Opened {
  /** The data folder's database (the records) and the store behind /memories/. */
  db: Database.Database;
  store: MemoryStore;
  /** Gives every memory of `namespace` the same modification time (a bulk import). */
  setAllModifiedAt(namespace: string, iso: string): Promise<void>;
  close(): Promise<void>;
}

const STORES: Record<string, () => Promise<Opened>> = {
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-memories-'));
    const db = openDatabase(join(dir, 'deepdesk.db'));
    return {
      db,
      store: new StoreBackend({ db, namespace: MEMORIES_NAMESPACE }),
      setAllModifiedAt: async (namespace, iso) => void db.prepare('UPDATE store_files SET modified_at = ? WHERE namespace = ?').run(iso, namespace),
      close: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  postgres: async () => {
    // A database per case: /memories/global/ is one namespace for every project.
    const database = await createTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-memories-pg-'));
    const db = openDatabase(join(dir, 'deepdesk.db'));
    const store = new PostgresStoreBackend({ url: database.url, namespace: MEMORIES_NAMESPACE });
    return {
      db,
      store,
      setAllModifiedAt: async (namespace, iso) => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        await client.query(`UPDATE ${POSTGRES_TABLE} SET modified_at = $1 WHERE namespace = $2`, [iso, namespace]).finally(() => client.end());
      },
      close: async () => {
        await store.close();
        db.close();
        rmSync(dir, { recursive: true, force: true });
        await database.drop();
      },
    };
  },
};

const PROJECT = '/home/ada/project';

for (const [kind, openStore] of Object.entries(STORES)) {
  describe(`MemoriesService on ${kind}`, () => {
    let opened: Opened;
    let book: MemoryBook;
    let service: MemoriesService;
    /** The project's memories as the store holds them (paths inside the scope). */
    let project: MemoryStore;
    let review: 'person' | 'off';

    const open = (projectKey: string) => openMemoryBook({ store: opened.store, db: opened.db, projectKey, review: () => review });

    beforeEach(async () => {
      review = 'person';
      opened = await openStore();
      book = await open(PROJECT);
      service = new MemoriesService(book, () => undefined);
      project = book.storeOf(book.projectScope);
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

    /** Many memories of the project at once, as the person's. */
    async function writeMany(entries: [string, string][]): Promise<void> {
      await project.withAuthor('user').uploadFiles(entries.map(([path, text]) => ({ path, content: new TextEncoder().encode(text) })));
    }

    /** A model's write in `thread`, beside `sources` (none: active; some: proposed unless review is off). */
    function modelWrite(thread: string, path: string, text: string, sources: string[]) {
      const writer: MemoryWriter = { kind: 'agent', thread, turn: 1, model: 'm' };
      return asMemoryWriter({ writer, sources: () => sources, personText: () => '' }, () => book.forThread(thread).write(path, text));
    }

    async function rejection(promise: Promise<unknown>): Promise<ContractError> {
      const err = await promise.then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(ContractError);
      return err as ContractError;
    }

    const names = (n: number, prefix = 'm'): string[] => Array.from({ length: n }, (_, i) => `/${prefix}-${String(i).padStart(n > 10_000 ? 5 : 4, '0')}.md`);

    it("lists the project's memories, then global/ ones; another project's are neither listed nor read", async () => {
      await service.write('/memories/style.md', 'Tabs.\n');
      await service.write('/memories/global/me.md', 'Ada.\n');
      expect((await service.list()).entries.map((m) => [m.path, m.scope, m.status])).toEqual([
        ['/memories/style.md', 'project', 'active'],
        ['/memories/global/me.md', 'global', 'active'],
      ]);
      expect(await paths({ scope: 'project' })).toEqual(['/memories/style.md']);
      expect(await paths({ scope: 'global' })).toEqual(['/memories/global/me.md']);
      expect(await paths({ query: 'a' })).toEqual(['/memories/style.md', '/memories/global/me.md']);

      const elsewhere = new MemoriesService(await open('/home/ada/other'), () => undefined);
      expect((await elsewhere.list()).entries.map((m) => m.path)).toEqual(['/memories/global/me.md']);
      expect((await elsewhere.list({ query: 'tabs' })).entries).toEqual([]);
      expect((await rejection(elsewhere.read('/memories/style.md'))).code).toBe('not_found');
      expect(await elsewhere.read('/memories/global/me.md')).toEqual({ path: '/memories/global/me.md', text: 'Ada.\n' });
      // The same name there is another memory.
      await elsewhere.write('/memories/style.md', 'Spaces.\n');
      expect((await service.read('/memories/style.md')).text).toBe('Tabs.\n');
    });

    it('keeps every change as a version; a delete keeps the history and restore brings a version back', async () => {
      await service.write('/memories/notes.md', 'one\n');
      await service.write('/memories/notes.md', 'two\n');
      await service.delete('/memories/notes.md');
      expect(await paths({})).toEqual([]);
      const { path, versions } = service.history('notes.md');
      expect(path).toBe('/memories/notes.md');
      expect(versions).toEqual([
        { version: 1, action: 'write', status: 'active', at: expect.any(String), writer: 'person', sources: [], text: 'one\n' },
        { version: 2, action: 'write', status: 'active', at: expect.any(String), writer: 'person', sources: [], text: 'two\n' },
        { version: 3, action: 'delete', status: 'deleted', at: expect.any(String), writer: 'person', sources: [], text: null },
      ]);
      await service.restore('/memories/notes.md', 1);
      expect((await service.read('/memories/notes.md')).text).toBe('one\n');
      expect(service.history('/memories/notes.md').versions.at(-1)).toMatchObject({ version: 4, action: 'restore', status: 'active', writer: 'person', text: 'one\n' });
      expect((await service.list()).entries[0]).toMatchObject({ path: '/memories/notes.md', writer: 'person', version: 4 });
      expect((await rejection(service.restore('/memories/notes.md', 9))).code).toBe('not_found');
    });

    it('a model writing beside untrusted content proposes: listed as proposed, used nowhere until the person approves it', async () => {
      expect(await modelWrite('t1', '/deploys.md', 'Deploy on Fridays.\n', ['read_file /README.md'])).toMatchObject({ proposed: true });
      expect(await paths({})).toEqual([]);
      expect((await service.list({ status: 'proposed' })).entries).toEqual([
        {
          path: '/memories/deploys.md', size: 19, modifiedAt: expect.any(String), scope: 'project', status: 'proposed',
          writer: 'agent (thread t1, turn 1, m)', version: 1, sources: ['read_file /README.md'], snippet: 'Deploy on Fridays.', thread: 't1',
        },
      ]);
      expect((await rejection(service.read('/memories/deploys.md'))).code).toBe('not_found');
      // Edit and approve: the person's text becomes the memory.
      await service.approve('/memories/deploys.md', { text: 'Deploy on Fridays, after 10.\n' });
      expect((await service.read('/memories/deploys.md')).text).toBe('Deploy on Fridays, after 10.\n');
      expect(service.history('/memories/deploys.md').versions.map((v) => [v.action, v.status, v.writer])).toEqual([
        ['write', 'approved', 'agent (thread t1, turn 1, m)'],
        ['approve', 'active', 'person'],
      ]);
      expect((await service.list({ status: 'proposed' })).entries).toEqual([]);
      expect((await rejection(service.approve('/memories/deploys.md', {}))).code).toBe('not_found');
    });

    it('a rejected proposal stays in the history as rejected; with no untrusted source, or review off, a model write is active', async () => {
      await modelWrite('t1', '/global/tone.md', 'Be terse.\n', ['mcp github.get_issue']);
      expect((await service.list({ status: 'proposed', scope: 'global' })).entries.map((m) => m.path)).toEqual(['/memories/global/tone.md']);
      expect((await service.list({ status: 'proposed', scope: 'project' })).entries).toEqual([]);
      service.reject('/memories/global/tone.md');
      expect((await service.list({ status: 'proposed' })).entries).toEqual([]);
      expect(service.history('/memories/global/tone.md').versions.map((v) => v.status)).toEqual(['rejected']);
      expect(await paths({})).toEqual([]);

      await modelWrite('t1', '/clean.md', 'x\n', []);
      review = 'off';
      await modelWrite('t2', '/open.md', 'y\n', ['execute npm test']);
      expect((await service.list()).entries.map((m) => [m.path, m.writer, m.thread, m.modifiedBy])).toEqual([
        ['/memories/clean.md', 'agent (thread t1, turn 1, m)', 't1', 't1'],
        ['/memories/open.md', 'agent (thread t2, turn 1, m)', 't2', 't2'],
      ]);
      // The person's edit of the agent's memory makes it theirs.
      await service.write('/memories/clean.md', 'z\n');
      expect((await service.list()).entries[0]).toMatchObject({ path: '/memories/clean.md', writer: 'person', modifiedBy: 'user' });
    });

    it('lists stale memories with what they name that the project no longer has', async () => {
      await service.write('/memories/build.md', 'Run scripts/build.sh\n');
      await service.write('/memories/fine.md', 'All good.\n');
      book.records.setStale(book.projectScope, '/build.md', 'scripts/build.sh no longer exists');
      expect((await service.list({ status: 'stale' })).entries.map((m) => [m.path, m.stale])).toEqual([['/memories/build.md', 'scripts/build.sh no longer exists']]);
      expect((await service.list()).entries.map((m) => m.stale)).toEqual(['scripts/build.sh no longer exists', undefined]);
    });

    it('moves a memory to global and back; a name taken there is refused', async () => {
      await service.write('/memories/me.md', 'Ada.\n');
      expect(await service.move('/memories/me.md', 'global')).toEqual({ path: '/memories/global/me.md' });
      expect(await paths({})).toEqual(['/memories/global/me.md']);
      expect(service.history('/memories/global/me.md').versions.map((v) => v.action)).toEqual(['move']);
      await service.write('/memories/me.md', 'Another.\n');
      expect((await rejection(service.move('/memories/global/me.md', 'project'))).code).toBe('failed');
      await service.delete('/memories/me.md');
      expect(await service.move('/memories/global/me.md', 'project')).toEqual({ path: '/memories/me.md' });
      expect((await service.read('/memories/me.md')).text).toBe('Ada.\n');
    });

    it('refuses a path that names no memory as a bad request', async () => {
      expect((await rejection(service.write('/memories/', 'x'))).code).toBe('bad_request');
      expect((await rejection(service.read('/memories/../../etc/passwd'))).code).toBe('bad_request');
      expect((await rejection(service.delete('/memories/none.md'))).code).toBe('not_found');
    });

    it('searches without minding case, ASCII or not, and shows the matching line', async () => {
      await service.write('/memories/tax.md', '# Notes\nPrices include VAT at 21%.\n');
      await service.write('/memories/trip.md', 'Été à Paris\n');
      await service.write('/memories/other.md', 'nothing here\n');
      expect((await service.list({ query: 'vat' })).entries.map((m) => [m.path, m.snippet])).toEqual([['/memories/tax.md', 'Prices include VAT at 21%.']]);
      expect(await paths({ query: 'ÉTÉ' })).toEqual(['/memories/trip.md']);
      // A name match counts too.
      expect(await paths({ query: 'OTHER' })).toEqual(['/memories/other.md']);
    });

    it('pages through every memory once, in path order, even when all share one date', async () => {
      const all = [...names(250), '/a/deep/x.md', '/.hidden.md', '/é.md', '/Z.md'];
      await writeMany(all.map((p) => [p, `text of ${p}\n`]));
      await opened.setAllModifiedAt(project.namespace, '2026-01-01T00:00:00.000Z');
      const pages = await allPages({ limit: 100 });
      expect(pages.map((p) => p.entries.length)).toEqual([100, 100, 54]);
      const listed = pages.flatMap((p) => p.entries.map((m) => m.path));
      expect(listed).toEqual(all.map((p) => `/memories${p}`).sort(compareCodePoints));
      expect(pages[0]!.next).toBe(listed[99]);
      // Asked again, a page is the same page.
      expect(await service.list({ limit: 100, after: pages[0]!.next! })).toEqual(pages[1]);
      expect(pages[0]!.entries[0]).toEqual({ path: listed[0], size: expect.any(Number), modifiedAt: '2026-01-01T00:00:00.000Z', modifiedBy: 'user', scope: 'project', status: 'active' });
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

describe('MemoriesService: memories kept before scopes', () => {
  it('are global now, and the list says so once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-memories-old-'));
    const db = openDatabase(join(dir, 'deepdesk.db'));
    try {
      const store = new StoreBackend({ db, namespace: MEMORIES_NAMESPACE, author: 'user' });
      await store.write('/kept.md', 'from before\n');
      const book = await openMemoryBook({ store, db, projectKey: PROJECT, review: () => 'person' });
      // Only the window is told (a CLI listing first does not use the notice up).
      expect((await new MemoriesService(book, () => undefined).list()).notice).toBeUndefined();
      const service = new MemoriesService(book, () => undefined, { usedOf: () => [] });
      const first = await service.list();
      expect(first.entries.map((m) => [m.path, m.scope])).toEqual([['/memories/global/kept.md', 'global']]);
      expect(first.notice).toMatch(/global/);
      expect((await service.list()).notice).toBeUndefined();
      // Its history starts where it stood: version 1, the person's, at its first change.
      await service.write('/memories/global/kept.md', 'changed\n');
      expect(service.history('/memories/global/kept.md').versions.map((v) => [v.version, v.writer, v.text])).toEqual([
        [1, 'person', 'from before\n'],
        [2, 'person', 'changed\n'],
      ]);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
