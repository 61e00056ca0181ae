// The PostgreSQL memories store beyond the shared cases: several processes writing at once
// lose nothing; a lost, refused or silent server is an error result naming the store
// without its password (never a throw, never a hang), and the next call works again once
// the server is back; concurrent first use creates the schema once; grep uses the index.

import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresBinDir } from '../../../../scripts/test-setup/system-tools';
import { POSTGRES_TABLE, PostgresStoreBackend, redactUrl } from './store-postgres';
import { createTestDatabase, startPostgresCluster, type PostgresCluster, type TestDatabase } from './testing/postgres';

const WRITER = fileURLToPath(new URL('./__fixtures__/pg-writer.mjs', import.meta.url));

function runWriter(url: string, id: string, count: number): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', WRITER, url, id, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, stdout }));
  });
}

const text = async (store: PostgresStoreBackend, path: string) => {
  const raw = await store.readRaw(path);
  expect(raw.error, path).toBeUndefined();
  return Buffer.from(raw.data!).toString('utf8');
};

let database: TestDatabase | undefined;
const opened: PostgresStoreBackend[] = [];
const open = (options: ConstructorParameters<typeof PostgresStoreBackend>[0]) => {
  const store = new PostgresStoreBackend(options);
  opened.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  await database?.drop();
  database = undefined;
});

describe('PostgresStoreBackend shared by several processes', () => {
  it('loses nothing when processes edit the same files and their own at once', async () => {
    database = await createTestDatabase();
    const WRITERS = 5;
    const STEPS = 40;
    // The files exist before the writers start.
    const ids = Array.from({ length: WRITERS }, (_, i) => `w${i}`);
    const seeds = [
      ['/shared/log.md', 'END'],
      ...ids.map((id) => [`/own/${id}.md`, 'END']),
    ];
    const results = await Promise.all([
      (async () => {
        const seeder = open({ url: database!.url, namespace: 'memories' });
        for (const [path, content] of seeds) expect((await seeder.write(path!, content!)).error).toBeUndefined();
      })().then(() => Promise.all(ids.map((id) => runWriter(database!.url, id, STEPS)))),
    ]);
    for (const r of results[0]) expect([r.code, r.stderr, r.stdout]).toEqual([0, '', 'done\n']);

    const store = open({ url: database.url, namespace: 'memories' });
    const shared = (await text(store, '/shared/log.md')).split('\n');
    expect(shared.at(-1)).toBe('END');
    expect(shared.slice(0, -1).sort()).toEqual(ids.flatMap((id) => Array.from({ length: STEPS }, (_, k) => `${id}-${k}`)).sort());
    for (const id of ids) {
      // Each process's own appends are all there, in its order.
      expect((await text(store, `/own/${id}.md`)).split('\n')).toEqual([...Array.from({ length: STEPS }, (_, k) => `${id}-${k}`), 'END']);
      const own = await store.glob('*.md', `/files/${id}`);
      expect(own.matches?.length).toBe(STEPS);
    }
    expect(ids.map((id) => `${id}-${STEPS - 1}\n`)).toContain(await text(store, '/shared/last.md'));
    // Authorship: each writer is recorded as the last writer of its own files.
    const page = await store.listPage('/own/', 100);
    expect(page.files.filter((f) => f.path.startsWith('/own/')).map((f) => [f.path, f.modifiedBy])).toEqual(ids.map((id) => [`/own/${id}.md`, `writer-${id}`]));
    // The version counts every write of the common file.
    expect((await store.stat('/shared/last.md')).version).toMatch(new RegExp(`\\.${WRITERS * STEPS}$`));
  });

  it('a fresh database opened by many sessions at once: the schema is made once, no call fails', async () => {
    database = await createTestDatabase();
    // Distinct timeouts give distinct pools: separate sessions, as separate processes would have.
    const stores = Array.from({ length: 8 }, (_, i) => open({ url: database!.url, namespace: 'memories', connectTimeoutMs: 5_000 + i }));
    const results = await Promise.all(stores.map((s, i) => s.write(`/first/${i}.md`, `${i}\n`)));
    expect(results.map((r) => r.error)).toEqual(stores.map(() => undefined));
    expect((await stores[0]!.ls('/first')).entries?.length).toBe(8);
    expect(stores.every((s) => s.indexed)).toBe(true);
  });

  it('concurrent writes in one process: upserts of one new path never fail on the unique key', async () => {
    database = await createTestDatabase();
    const a = open({ url: database.url, namespace: 'memories' });
    const b = a.withAuthor('other');
    const writes = Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).write(`/same/${i % 3}.md`, `v${i}\n`));
    expect((await Promise.all(writes)).map((r) => r.error)).toEqual(writes.map(() => undefined));
    expect((await a.glob('**', '/same')).matches?.map((m) => m.path)).toEqual(['/same/0.md', '/same/1.md', '/same/2.md']);
  });

  it('answers grep and search through trigram indexes when pg_trgm can be created', async () => {
    database = await createTestDatabase();
    const store = open({ url: database.url, namespace: 'memories' });
    await store.uploadFiles(Array.from({ length: 2000 }, (_, i) => ({ path: `/n/${i}.md`, content: new TextEncoder().encode(`note ${i}${i === 777 ? ' qzxvj' : ''}\n`) })));
    expect((await store.grep('qzxvj')).matches).toEqual([{ path: '/n/777.md', line: 1, text: 'note 777 qzxvj' }]);
    expect(store.indexed).toBe(true);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      // A table this small is cheaper to scan; forbid that to see the indexes answer LIKE and ILIKE (the bench measures the real plan).
      await client.query(`ANALYZE ${POSTGRES_TABLE}`);
      await client.query('SET enable_seqscan = off');
      const plan = (await client.query(`EXPLAIN SELECT path FROM ${POSTGRES_TABLE} WHERE content LIKE '%qzxvj%'`)).rows.map((r: Record<string, string>) => Object.values(r)[0]).join('\n');
      expect(plan).toMatch(/content_trgm/);
      const search = (await client.query(`EXPLAIN SELECT path FROM ${POSTGRES_TABLE} WHERE path ILIKE '%q_xvj%' OR content ILIKE '%q_xvj%'`)).rows.map((r: Record<string, string>) => Object.values(r)[0]).join('\n');
      expect(search).toMatch(/path_trgm[\s\S]*content_trgm|content_trgm[\s\S]*path_trgm/);
    } finally {
      await client.end();
    }
  });
});

describe('PostgresStoreBackend namespaces', () => {
  it('isolate files completely in a shared database (ls, read, grep, glob, pages, search, delete)', async () => {
    database = await createTestDatabase();
    const a = open({ url: database.url, namespace: 'alpha' });
    const b = open({ url: database.url, namespace: 'beta' });
    await a.write('/same.md', 'alpha secret\n');
    await a.write('/only-a/x.md', 'alpha only\n');
    await b.write('/same.md', 'beta text\n');
    const grepPaths = async (s: PostgresStoreBackend, p: string) => ((await s.grep(p)).matches ?? []).map((m) => `${m.path}:${m.line}`);

    expect((await a.read('/same.md')).fileData?.content).toBe('alpha secret');
    expect((await b.read('/same.md')).fileData?.content).toBe('beta text');
    expect((await b.ls('/')).entries?.map((e) => e.path)).toEqual(['/same.md']);
    expect((await b.ls('/only-a')).error).toBeTruthy();
    expect((await b.read('/only-a/x.md')).error).toBeTruthy();
    expect(await grepPaths(b, 'alpha')).toEqual([]);
    expect(await grepPaths(b, 'al')).toEqual([]);
    expect((await b.glob('**/*.md')).matches?.map((m) => m.path)).toEqual(['/same.md']);
    expect((await b.listPage('', 10)).files.map((f) => f.path)).toEqual(['/same.md']);
    expect((await b.searchPage('alpha', '', 10)).files).toEqual([]);
    expect((await b.searchPage('al', '', 10)).files).toEqual([]);

    await b.delete('/same.md');
    expect((await a.read('/same.md')).fileData?.content).toBe('alpha secret');
    expect(await grepPaths(a, 'alpha')).toEqual(['/only-a/x.md:1', '/same.md:1']);
  });
});

describe('PostgresStoreBackend when the database is out of reach', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    // Durable commits: an immediate stop must not lose what was acknowledged.
    cluster = await startPostgresCluster(postgresBinDir(), { fsync: true });
  });
  afterAll(() => cluster?.dispose());

  it('a stopped server is an error naming the store without its password; back up, the next call works', async () => {
    const store = open({ url: cluster.url(), namespace: 'memories', label: `memories store ${redactUrl(cluster.url())}` });
    const author = store.withAuthor('thread-1');
    expect((await store.write('/kept.md', 'kept\n')).error).toBeUndefined();
    cluster.stop();
    try {
      const results = [
        (await store.read('/kept.md')).error, (await author.write('/new.md', 'x')).error, (await store.edit('/kept.md', 'kept', 'k')).error,
        (await store.grep('kept')).error, (await store.ls('/')).error, (await store.glob('*')).error, (await store.delete('/kept.md')).error,
      ];
      for (const error of results) {
        expect(error).toMatch(new RegExp(`^memories store postgres://deepdesk@127\\.0\\.0\\.1:${cluster.port}/postgres is unreachable: `));
        expect(error).not.toContain(cluster.password);
      }
      await expect(store.listPage('', 10)).rejects.toThrow(/is unreachable/);
      expect(await store.uploadFiles([{ path: '/u.md', content: new Uint8Array([120]) }])).toEqual([{ path: '/u.md', error: 'permission_denied' }]);
    } finally {
      cluster.start();
    }
    expect(await text(store, '/kept.md')).toBe('kept\n');
    expect((await author.write('/new.md', 'x\n')).error).toBeUndefined();
    expect((await store.listPage('', 10)).files.map((f) => [f.path, f.modifiedBy])).toEqual([['/kept.md', null], ['/new.md', 'thread-1']]);
  });

  it('a wrong password is refused, and the message does not carry it', async () => {
    const url = cluster.url().replace(cluster.password, 's3cret-wrong');
    const store = open({ url, namespace: 'memories' });
    const res = await store.read('/x.md');
    expect(res.error).toMatch(/^store postgres:\/\/deepdesk@127\.0\.0\.1:\d+\/postgres refused the login: password authentication failed/);
    expect(res.error).not.toContain('s3cret-wrong');
  });

  it('a closed port fails at once; a server that never answers fails at the connect timeout', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    const refused = open({ url: `postgres://me:pw@127.0.0.1:${closed}/team`, namespace: 'memories' });
    expect((await refused.ls('/')).error).toMatch(new RegExp(`^store postgres://me@127\\.0\\.0\\.1:${closed}/team is unreachable: .*ECONNREFUSED`));

    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const store = open({ url: `postgres://me:pw@127.0.0.1:${port}/team`, namespace: 'memories', connectTimeoutMs: 1_000 });
      expect((await store.write('/x.md', 'x')).error).toMatch(/is unreachable: .*timeout/i);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('redactUrl', () => {
  it('drops the password, keeps the rest', () => {
    expect(redactUrl('postgres://me:p%40ss@db.example:5433/team?sslmode=require')).toBe('postgres://me@db.example:5433/team?sslmode=require');
    expect(redactUrl('postgresql://db/team?password=x&user=me')).toBe('postgresql://db/team?password=***&user=me');
    expect(redactUrl('postgres://me@db/team')).toBe('postgres://me@db/team');
  });
});
