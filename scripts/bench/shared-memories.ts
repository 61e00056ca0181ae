// Issue 22, shared memories: the agent's grep and the Memories panel on 10k memories kept in
// PostgreSQL (a throw-away cluster started here with the test set-up's code, durable
// commits, on 127.0.0.1) beside the same 10k memories in the local SQLite store. The
// memories are the first 10k of the 20k data set of the memories suite.

import fs from 'node:fs';
import pg from 'pg';
import os from 'node:os';
import path from 'node:path';
import { postgresBinDir } from '../test-setup/system-tools';
import { startPostgresCluster, type PostgresCluster } from '../test-setup/postgres-cluster';
import { MEMORIES_NAMESPACE } from '../../src-main/core/backends/store/memory-store-api';
import type { MemoryStore } from '../../src-main/core/backends/store/memory-store-api';
import { openDatabase, StoreBackend } from '../../src-main/core/backends/store/store';
import { POSTGRES_TABLE, PostgresStoreBackend } from '../../src-main/core/backends/store/store-postgres';
import { ensureMemories, MEMORY_SEARCH } from './gen-data';
import { type ContenderResult, formatMs, formatRatio, median, timeInterleaved } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';

const COUNT = 10_000;
const TARGET_MS = 150;
const ROUND_BUDGET_MS = 15_000;

const ms = (r: ContenderResult | undefined): number => (r && !r.error ? median(r.times) : NaN);
const cell = (r: ContenderResult | undefined): string => (r === undefined ? 'n/a' : r.error ? `error: ${r.error.slice(0, 50)}` : formatMs(ms(r)));

export async function benchSharedMemories(report: Report, options: BenchOptions, dataDir: string): Promise<void> {
  const section = report.section('Issue 22 · shared memories: PostgreSQL store vs the SQLite store, 10k memories (the floor column holds the SQLite store)');
  const source = await ensureMemories(dataDir, '20k', options.regenerate);
  const rows = openDatabase(source.file)
    .prepare<[string, number], { path: string; content: string }>("SELECT path, content FROM store_files WHERE namespace = ? AND encoding = 'utf-8' ORDER BY id LIMIT ?");
  const files = rows.all(MEMORIES_NAMESPACE, COUNT).map((r) => ({ path: r.path, content: new TextEncoder().encode(r.content) }));

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-shared-'));
  let cluster: PostgresCluster | undefined;
  const stores: MemoryStore[] = [];
  try {
    progress('shared memories: starting a PostgreSQL cluster');
    cluster = await startPostgresCluster(postgresBinDir(), { fsync: true });
    const sqlite = new StoreBackend({ db: path.join(tmp, 'deepdesk.db'), namespace: MEMORIES_NAMESPACE });
    const postgres = new PostgresStoreBackend({ url: cluster.url(), namespace: MEMORIES_NAMESPACE });
    stores.push(sqlite, postgres);
    progress(`shared memories: loading ${COUNT} memories into both stores`);
    for (let i = 0; i < files.length; i += 1_000) {
      for (const store of stores) {
        const results = await store.uploadFiles(files.slice(i, i + 1_000));
        const failed = results.find((r) => r.error !== undefined);
        if (failed) throw new Error(`loading ${failed.path}: ${failed.error}`);
      }
    }
    // Fresh statistics, as autovacuum would gather them shortly after a bulk load.
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query(`ANALYZE ${POSTGRES_TABLE}`).finally(() => admin.end());
    const count = (r: { error?: string; matches?: unknown[]; truncated?: boolean }): string => {
      if (r.error) throw new Error(r.error);
      return `${r.matches?.length ?? 0} matches${r.truncated ? ' (truncated)' : ''}`;
    };
    const cases: { name: string; run: (s: MemoryStore) => Promise<string>; target?: boolean }[] = [
      { name: `grep '${MEMORY_SEARCH.planted}'`, run: async (s) => count(await s.grep(MEMORY_SEARCH.planted, '/')), target: true },
      { name: "grep 'qzxvj' (no hit)", run: async (s) => count(await s.grep('qzxvj', '/')), target: true },
      { name: "grep 'the' (a common word, 1000 matches at most)", run: async (s) => count(await s.grep('the', '/')) },
      { name: `panel search '${MEMORY_SEARCH.query}' (first 100)`, run: async (s) => `${(await s.searchPage(MEMORY_SEARCH.query, '', 100)).files.length} files`, target: true },
      { name: 'panel first page (100)', run: async (s) => `${(await s.listPage('', 100)).files.length} files`, target: true },
      { name: 'write one memory', run: async (s) => ((await s.write('/bench/one.md', `note ${Date.now()}\n`)).error ?? 'written') },
      { name: 'edit one memory', run: async (s) => ((await s.edit('/bench/one.md', 'note', 'note')).error ?? 'edited') },
    ];
    for (const c of cases) {
      progress(`shared memories: ${c.name}`);
      const r = await timeInterleaved(
        { postgres: { run: () => c.run(postgres) }, sqlite: { run: () => c.run(sqlite) } },
        { runs: options.runs, budgetMs: ROUND_BUDGET_MS },
      );
      section.rows.push({
        name: `Postgres store, 10k memories: ${c.name} → ${r.postgres?.detail ?? 'n/a'} (SQLite: ${r.sqlite?.detail ?? 'n/a'})`,
        ours: cell(r.postgres),
        floor: cell(r.sqlite),
        ratio: Number.isFinite(ms(r.postgres)) && Number.isFinite(ms(r.sqlite)) ? formatRatio(ms(r.postgres), ms(r.sqlite)) : '',
        ...(c.target ? { target: `≤${TARGET_MS} ms`, result: verdict(ms(r.postgres) <= TARGET_MS) } : {}),
      });
    }
    section.notes.push(
      `shared memories: ${COUNT} notes of 200 B–2 KB, '${MEMORY_SEARCH.planted}' in 1 in 100 (half in upper case); PostgreSQL ${postgres.indexed ? 'with' : 'WITHOUT'} pg_trgm indexes, ` +
        'fsync on, analysed after the load, over TCP on 127.0.0.1; ratio = PostgreSQL ÷ SQLite',
    );
  } finally {
    for (const store of stores) await store.close();
    cluster?.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
