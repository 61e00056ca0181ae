// Issue 17, the Memories page: the panel's first page and a search at 1k / 20k / 100k
// memories through MemoriesService (what memories.list answers, serialised as the
// transport sends it), each beside the floor: the same question asked of SQLite directly
// with better-sqlite3 (`ORDER BY path LIMIT`, and an `instr` scan). Plus the agent's grep,
// glob and ls on /memories/ at 100k beside an SQL scan.

import type Database from 'better-sqlite3';
import { MemoriesService } from '../../src-main/app/memories/memories-service';
import { MEMORIES_NAMESPACE } from '../../src-main/core/backends/store/memory-store-api';
import { openDatabase, StoreBackend } from '../../src-main/core/backends/store/store';
import type { Backend } from '../../src-main/core/backends/protocol';
import type { MemoryBook } from '../../src-main/core/memories/memory-book';
import { openMemoryBook } from '../../src-main/core/memories/open-memory-book';
import { asMemoryWriter } from '../../src-main/core/memories/write-context';
import { ensureMemories, MEMORY_COUNTS, MEMORY_SEARCH, type MemoryCount } from './gen-data';
import { type Contender, type ContenderResult, formatMs, formatRatio, median, timeInterleaved } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report, type Section } from './report';

const TARGET_MS = 150;
const TARGET_BYTES = 1024 * 1024;
const PAGE = 100;
const ROUND_BUDGET_MS = 15_000;

const ms = (r: ContenderResult | undefined): number => (r && !r.error ? median(r.times) : NaN);
const cell = (r: ContenderResult | undefined): string => (r === undefined ? 'n/a' : r.error ? `error: ${r.error.slice(0, 50)}` : formatMs(ms(r)));
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

export async function benchMemories(report: Report, options: BenchOptions, dataDir: string): Promise<void> {
  const section = report.section('Issue 17 · the Memories page (MemoriesService → JSON reply; floor: the same SQL run directly with better-sqlite3)');
  for (const count of Object.keys(MEMORY_COUNTS) as MemoryCount[]) {
    const data = await ensureMemories(dataDir, count, options.regenerate);
    const db = openDatabase(data.file);
    try {
      // The generated memories are in the namespace every memory lived in before scopes: the global scope (SPEC §25).
      const book = await openMemoryBook({ store: new StoreBackend({ db, namespace: MEMORIES_NAMESPACE }), db, projectKey: '/bench/project', review: () => 'person' });
      const service = new MemoriesService(book, () => undefined);
      await listAndSearch(section, options, db, service, `${count} memories`);
      if (count === '100k') {
        await agentTools(section, options, db, book.forThread('bench'));
        await writeCost(section, options, book);
      }
    } finally {
      db.close();
    }
  }
  section.notes.push(
    `memories: ${MEMORY_SEARCH.planted} planted (in varying case) in 1 in 100 notes of 200 B–2 KB; a page is ${PAGE} memories; ` +
      'the "rg (floor)" column holds the SQL floor here; reply = the JSON the transport sends',
  );
}

async function listAndSearch(section: Section, options: BenchOptions, db: Database.Database, service: MemoriesService, label: string): Promise<void> {
  const firstPage = db.prepare('SELECT path, size, modified_at, modified_by FROM store_files WHERE namespace = ? ORDER BY path LIMIT ?');
  const instrScan = db.prepare('SELECT path, size, modified_at, modified_by FROM store_files WHERE namespace = ? AND instr(lower(content), ?) > 0 ORDER BY path LIMIT ?');
  // `whole`: the sum of several calls, for which the per-reply targets do not apply.
  const cases: { name: string; ours: () => Promise<string>; floor: () => unknown[]; whole?: boolean }[] = [
    { name: 'panel, first page', ours: () => service.list({ limit: PAGE }).then(JSON.stringify), floor: () => firstPage.all(MEMORIES_NAMESPACE, PAGE) },
    {
      name: `search '${MEMORY_SEARCH.query}'`,
      ours: () => service.list({ query: MEMORY_SEARCH.query, limit: PAGE }).then(JSON.stringify),
      floor: () => instrScan.all(MEMORIES_NAMESPACE, MEMORY_SEARCH.query, PAGE),
    },
  ];
  if (label.startsWith('100k')) {
    const search = (query: string) => () => service.list({ query, limit: PAGE }).then(JSON.stringify);
    const everyPage = (query: string) => async () => {
      const pages = [await service.list({ query, limit: PAGE })];
      while (pages.at(-1)!.next !== null) pages.push(await service.list({ query, limit: PAGE, after: pages.at(-1)!.next! }));
      return JSON.stringify({ entries: pages.flatMap((p) => p.entries), calls: pages.length });
    };
    cases.push(
      { name: "search 'page' (a common word)", ours: search('page'), floor: () => instrScan.all(MEMORIES_NAMESPACE, 'page', PAGE) },
      { name: "search 'qzxvj' (no hit)", ours: search('qzxvj'), floor: () => instrScan.all(MEMORIES_NAMESPACE, 'qzxvj', PAGE) },
      { name: "search 'qz' (2 chars: a bounded scan), first reply", ours: search('qz'), floor: () => instrScan.all(MEMORIES_NAMESPACE, 'qz', PAGE) },
      { name: "search 'qz', every reply to the end (all of them together)", ours: everyPage('qz'), floor: () => instrScan.all(MEMORIES_NAMESPACE, 'qz', PAGE), whole: true },
    );
  }
  for (const c of cases) {
    progress(`memories ${label}: ${c.name}`);
    let reply = '';
    let floorRows = 0;
    const contenders: Record<string, Contender> = {
      ours: {
        run: async () => {
          reply = await c.ours();
          const parsed = JSON.parse(reply) as { entries: unknown[]; calls?: number };
          return `${parsed.entries.length} entries${parsed.calls ? ` in ${parsed.calls} calls` : ''}`;
        },
      },
      floor: { run: async () => `${(floorRows = c.floor().length)} rows` },
    };
    const r = await timeInterleaved(contenders, { runs: options.runs, budgetMs: ROUND_BUDGET_MS });
    const bytes = Buffer.byteLength(reply);
    section.rows.push({
      name: `${label}: ${c.name} → ${r.ours?.detail ?? 'n/a'} (floor ${floorRows})${c.whole ? '' : `, reply ${kb(bytes)}`}`,
      ours: cell(r.ours),
      floor: cell(r.floor),
      ratio: Number.isFinite(ms(r.ours)) && Number.isFinite(ms(r.floor)) ? formatRatio(ms(r.ours), ms(r.floor)) : '',
      ...(c.whole ? {} : { target: `≤${TARGET_MS} ms, ≤1 MB`, result: `${verdict(ms(r.ours) <= TARGET_MS)}, ${verdict(bytes <= TARGET_BYTES)}` }),
    });
  }
}

/** The agent's view of the global memories (what it sees at /memories/global/). */
async function agentTools(section: Section, options: BenchOptions, db: Database.Database, view: Backend): Promise<void> {
  const folder = db.prepare<[string], { path: string }>("SELECT path FROM store_files WHERE namespace = ? AND path LIKE '/%/%' ORDER BY path LIMIT 1").get(MEMORIES_NAMESPACE)!.path;
  const stored = folder.slice(0, folder.indexOf('/', 1));
  const dir = `/global${stored}`;
  const store = view;
  const everything = db.prepare('SELECT path, size, modified_at FROM store_files WHERE namespace = ? ORDER BY path');
  const instr = db.prepare('SELECT path, content FROM store_files WHERE namespace = ? AND instr(content, ?) > 0 ORDER BY path');
  const count = (r: { error?: string; matches?: unknown[]; entries?: unknown[] }, unit: string): string => {
    if (r.error) throw new Error(r.error);
    return `${(r.matches ?? r.entries ?? []).length} ${unit}`;
  };
  const cases: { name: string; ours: () => Promise<string>; floor: () => string }[] = [
    {
      name: `ls ${dir}`,
      ours: async () => count(await store.ls(dir), 'entries'),
      floor: () => `${everything.all(MEMORIES_NAMESPACE).filter((r) => (r as { path: string }).path.startsWith(stored + '/')).length} rows`,
    },
    {
      name: `glob '${dir.slice(1)}/*.md'`,
      ours: async () => count(await store.glob(`${dir.slice(1)}/*.md`, '/'), 'files'),
      floor: () => `${everything.all(MEMORIES_NAMESPACE).filter((r) => (r as { path: string }).path.startsWith(stored + '/')).length} rows`,
    },
    {
      name: `grep '${MEMORY_SEARCH.planted}'`,
      ours: async () => count(await store.grep(MEMORY_SEARCH.planted, '/global', undefined, 1000), 'matches'),
      floor: () => `${instr.all(MEMORIES_NAMESPACE, MEMORY_SEARCH.planted).length} rows`,
    },
  ];
  for (const c of cases) {
    progress(`memories 100k: agent ${c.name}`);
    const r = await timeInterleaved({ ours: { run: c.ours }, floor: { run: async () => c.floor() } }, { runs: options.runs, budgetMs: ROUND_BUDGET_MS });
    section.rows.push({
      name: `100k memories: agent ${c.name} → ${r.ours?.detail ?? 'n/a'} (floor: full SQL scan, ${r.floor?.detail ?? 'n/a'})`,
      ours: cell(r.ours),
      floor: cell(r.floor),
      ratio: Number.isFinite(ms(r.ours)) && Number.isFinite(ms(r.floor)) ? formatRatio(ms(r.ours), ms(r.floor)) : '',
    });
  }
}

/**
 * What a memory write costs the agent's turn at 100k memories (SPEC §25: one transaction): the
 * store's own write (floor), an active write through the gate (text and version in one
 * transaction), and a proposed one (a version row only).
 */
async function writeCost(section: Section, options: BenchOptions, book: MemoryBook): Promise<void> {
  const floor = book.storeOf('global');
  const view = book.forThread('bench-writer');
  const beside = (sources: string[]) => ({ writer: { kind: 'agent' as const, thread: 'bench-writer' }, sources: () => sources, personText: () => '' });
  let n = 0;
  const cases = [
    { name: 'an active write (no untrusted source)', ours: () => asMemoryWriter(beside([]), () => view.write(`/global/bench/active-${n++}.md`, 'a note\n')) },
    { name: 'a proposed write (after read_file /README.md)', ours: () => asMemoryWriter(beside(['read_file /README.md']), () => view.write(`/global/bench/proposed-${n++}.md`, 'a note\n')) },
  ];
  for (const c of cases) {
    progress(`memories 100k: ${c.name}`);
    const r = await timeInterleaved(
      { ours: { run: async () => ((await c.ours()).error ?? 'written') }, floor: { run: async () => ((await floor.write(`/bench/floor-${n++}.md`, 'a note\n')).error ?? 'written') } },
      { runs: options.runs, budgetMs: ROUND_BUDGET_MS },
    );
    section.rows.push({
      name: `100k memories: ${c.name} (floor: the store's own write)`,
      ours: cell(r.ours),
      floor: cell(r.floor),
      ratio: Number.isFinite(ms(r.ours)) && Number.isFinite(ms(r.floor)) ? formatRatio(ms(r.ours), ms(r.floor)) : '',
    });
  }
}
