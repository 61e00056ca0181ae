// Issue 17 · threads: opening a long thread (1k … 100k messages) through the app's contract,
// as a window does (threads.get, its reply as the JSON frame sent and parsed), next to the
// floor of reading the thread's stored rows and parsing them; and the memory a process
// keeps after opening several big threads and leaving them. Threads are generated once
// into .bench/data/thread-<n>.sqlite and copied into a fresh data folder per run.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openDatabase } from '../../src-main/core/backends/store/store';
import { newThreadState } from '../../src-main/core/agent/types';
import { createApp, type App } from '../../src-main/app/window/folder-app';
import type { Result } from '../../src-main/app/contract';
import { displayItems } from '../../src-main/app/threads/display-items';
import { ThreadStore } from '../../src-main/app/threads/thread-store';
import { FileSecretStore } from '../../src-main/app/settings/file-secret-store';
import { formatMb, formatMs, formatRatio, median } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report, type Section } from './report';
import { threadMessages } from './thread-fixture';

const THREAD_ID = 'bench-thread';
const SIZES = [1_000, 10_000, 20_000, 100_000] as const;
/** Every this many tool results is a long command output (what pages cut). */
const LONG_OUTPUT_EVERY = 100;
const LONG_OUTPUT_CHARS = 60_000;
/** Threads opened one after another for the memory row. */
const LEFT_THREADS = 6;
const LEFT_SIZE = 20_000;
/** 2: threads saved with their person_count. */
const DATA_VERSION = 2;

function label(n: number): string {
  return n >= 1000 ? `${n / 1000}k` : String(n);
}

/** The cached database with one thread of `n` messages (folder '' until a run sets its own). */
function ensureThreadDb(dataDir: string, n: number, regenerate: boolean): string {
  const file = path.join(dataDir, `thread-${label(n)}.sqlite`);
  const manifest = `${file}.manifest.json`;
  const wanted = JSON.stringify({ version: DATA_VERSION, messages: n });
  if (!regenerate && fs.existsSync(file) && fs.existsSync(manifest) && fs.readFileSync(manifest, 'utf8') === wanted) return file;
  progress(`generating a thread of ${n.toLocaleString('en-US')} messages into ${path.relative(process.cwd(), file)}`);
  for (const f of [file, `${file}-wal`, `${file}-shm`, manifest]) fs.rmSync(f, { force: true });
  const db = openDatabase(file);
  try {
    const state = newThreadState(THREAD_ID);
    let tools = 0;
    state.messages = threadMessages(n).map((m) => {
      if (m.role !== 'tool' || ++tools % LONG_OUTPUT_EVERY !== 0) return m;
      const body = typeof m.content === 'string' ? m.content : '';
      return { ...m, content: body.repeat(Math.ceil(LONG_OUTPUT_CHARS / Math.max(1, body.length))).slice(0, LONG_OUTPUT_CHARS) };
    });
    new ThreadStore(db).save(state, { folder: '' });
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  fs.writeFileSync(manifest, wanted);
  return file;
}

interface Sandbox {
  app: App;
  dataDir: string;
  folder: string;
  close(): Promise<void>;
}

/** An app on a fresh folder whose database is a copy of `source`, its threads moved to that folder (copies `extra` times more under other ids). */
async function appWith(source: string, copies = 0): Promise<Sandbox> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-threads-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-threads-data-'));
  const dbFile = path.join(dataDir, 'deepdesk.db');
  fs.copyFileSync(source, dbFile);
  const db = openDatabase(dbFile);
  db.prepare('UPDATE threads SET folder = ?').run(folder);
  for (let i = 1; i <= copies; i++) {
    db.prepare(
      'INSERT INTO threads (id, title, folder, created_at, updated_at, message_count, person_count, state_json) SELECT ?, title, folder, created_at, updated_at, message_count, person_count, state_json FROM threads WHERE id = ?',
    ).run(`${THREAD_ID}-${i}`, THREAD_ID);
    db.prepare('INSERT INTO thread_messages (thread_id, seq, message_json) SELECT ?, seq, message_json FROM thread_messages WHERE thread_id = ?').run(`${THREAD_ID}-${i}`, THREAD_ID);
  }
  db.close();
  const app = await createApp({ folder, dataDir, secrets: new FileSecretStore(dataDir), transport: 'web', env: { ...process.env, OPENAI_API_KEY: '' } });
  return {
    app,
    dataDir,
    folder,
    async close() {
      await app.close();
      fs.rmSync(folder, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a window waits for: the reply computed, sent as JSON and parsed. */
async function openThread(app: App, threadId: string): Promise<number> {
  const frame = JSON.stringify({ id: 1, result: await app.handle('threads.get', { threadId }) });
  JSON.parse(frame);
  return Buffer.byteLength(frame);
}

/** The floor: the thread's stored rows read and each parsed (what any loader of it must do). */
function readRows(dbFile: string, threadId: string): number {
  const db = openDatabase(dbFile);
  try {
    const rows = db.prepare<[string], { message_json: string }>('SELECT message_json FROM thread_messages WHERE thread_id = ? ORDER BY seq').all(threadId);
    for (const row of rows) JSON.parse(row.message_json);
    return rows.length;
  } finally {
    db.close();
  }
}

async function memoryKept(section: Section, benchData: string, regenerate: boolean): Promise<void> {
  progress(`memory kept after opening ${LEFT_THREADS} threads of ${label(LEFT_SIZE)} messages`);
  const box = await appWith(ensureThreadDb(benchData, LEFT_SIZE, regenerate), LEFT_THREADS - 1);
  try {
    const ids = [THREAD_ID, ...Array.from({ length: LEFT_THREADS - 1 }, (_, i) => `${THREAD_ID}-${i + 1}`)];
    const before = memory();
    for (const id of ids) await openThread(box.app, id);
    const after = memory();
    // What the app kept of each thread it had opened before pages: the thread loaded whole.
    const db = openDatabase(path.join(box.dataDir, 'deepdesk.db'));
    let held: unknown;
    try {
      held = new ThreadStore(db).load(THREAD_ID);
    } finally {
      db.close();
    }
    const whole = memory();
    const kept = after.heap - before.heap;
    const one = whole.heap - after.heap;
    section.rows.push({
      name: `JS heap kept (after GC) after opening and leaving ${LEFT_THREADS} threads of ${label(LEFT_SIZE)}`,
      ours: `+${formatMb(kept)}`,
      reference: `+${formatMb(one)} a thread loaded whole`,
      ratio: `${formatRatio(kept, one)} one whole`,
      target: '< one whole',
      result: verdict(kept < one),
    });
    section.rows.push({
      name: '  RSS, same threads',
      ours: `+${formatMb(after.rss - before.rss)}`,
      reference: `+${formatMb(whole.rss - after.rss)} a thread loaded whole`,
      result: 'info',
    });
    if (held === undefined) throw new Error('the thread did not load');
  } finally {
    await box.close();
  }
}

function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

function memory(): { rss: number; heap: number } {
  gc();
  gc();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed + usage.external };
}

/** The thread list's search over a long history: 40 threads of 250 exchanges, each with a 4 KB tool result (moved here from thread-store.test). */
const SEARCH_THREADS = 40;
const SEARCH_EXCHANGES = 250;
const SEARCH_TARGET_MS = 750;

function searchRows(section: Section, runs: number): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-search-'));
  const db = openDatabase(path.join(dir, 'deepdesk.db'));
  try {
    const store = new ThreadStore(db);
    for (let t = 0; t < SEARCH_THREADS; t++) {
      const state = newThreadState(`t${t}`);
      for (let i = 0; i < SEARCH_EXCHANGES; i++) {
        state.messages.push({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} of thread ${t}: ${'lorem ipsum '.repeat(20)}${t === 7 && i === 200 ? ' the needle' : ''}` });
        state.messages.push({ role: 'tool', toolCallId: `c${i}`, toolName: 'read_file', content: 'x'.repeat(4000) });
      }
      store.save(state, { folder: '/big' });
    }
    for (const query of ['NEEDLE', 'lorem', 'lorem ipsum', 'no such words here']) {
      const times: number[] = [];
      for (let round = 0; round <= runs; round++) {
        const start = performance.now();
        store.search('/big', query);
        if (round > 0) times.push(performance.now() - start);
      }
      const took = median(times);
      section.rows.push({ name: `search ${SEARCH_THREADS} threads of ${SEARCH_EXCHANGES * 2} messages for "${query}"`, ours: formatMs(took), target: `≤ ${SEARCH_TARGET_MS} ms`, result: verdict(took <= SEARCH_TARGET_MS) });
    }
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchThreads(report: Report, options: BenchOptions, benchData: string): Promise<void> {
  const section = report.section('Issue 17 · threads (opening a long thread, memory kept)');
  const runs = Math.min(options.runs, 5);
  // Memory first, while this process has not yet grown its heap for the biggest thread.
  await memoryKept(section, benchData, options.regenerate);
  searchRows(section, runs);
  for (const n of SIZES) {
    const source = ensureThreadDb(benchData, n, options.regenerate);
    const box = await appWith(source);
    try {
      const dbFile = path.join(box.dataDir, 'deepdesk.db');
      // Two small threads opened before each timed open push the big one out of memory: every
      // open is cold, as in a process that has not shown the thread yet.
      const create = async (): Promise<string> => ((await box.app.handle('threads.create', {})) as Result<'threads.create'>).id;
      const others = [await create(), await create()];
      const opens: number[] = [];
      const floors: number[] = [];
      const wholes: number[] = [];
      let replyBytes = 0;
      let spent = 0;
      for (let round = 0; round <= runs && (round <= 1 || spent < 30_000); round++) {
        for (const id of others) await box.app.handle('threads.get', { threadId: id });
        let start = performance.now();
        replyBytes = await openThread(box.app, THREAD_ID);
        const open = performance.now() - start;
        start = performance.now();
        readRows(dbFile, THREAD_ID);
        const floor = performance.now() - start;
        start = performance.now();
        wholeThreadReply(dbFile);
        const before = performance.now() - start;
        if (round === 0) continue;
        opens.push(open);
        floors.push(floor);
        wholes.push(before);
        spent += open + floor + before;
      }
      const open = median(opens);
      const floor = median(floors);
      const whole = wholeThreadReply(dbFile);
      section.rows.push({
        name: `open a thread of ${n.toLocaleString('en-US')} messages`,
        ours: formatMs(open),
        floor: formatMs(floor),
        reference: `${formatMs(median(wholes))} (all items)`,
        ratio: `${formatRatio(open, floor)} floor, ${formatRatio(open, median(wholes))} all`,
        ...(n === 10_000 ? { target: '≤ 150 ms', result: verdict(open <= 150) } : {}),
      });
      section.rows.push({
        name: `  reply size (the whole thread as items: ${formatMb(whole)})`,
        ours: formatMb(replyBytes),
        target: '≤ 2 MB',
        result: verdict(replyBytes <= 2 * 1024 * 1024),
      });
    } finally {
      await box.close();
    }
  }

  section.notes.push('open = app.handle("threads.get") of a thread not in memory + JSON of the reply frame + JSON.parse of it (in process, no socket)');
  section.notes.push('floor = SELECT of the thread\'s stored message rows + JSON.parse of each; every 100th tool result is a 60 KB output');
  section.notes.push('reference (all items) = what opening cost before pages: the thread loaded, all its items as the reply, JSON of it and JSON.parse');
  section.notes.push('memory after a forced GC, before and after opening the threads one after another; before pages the app kept each opened thread loaded whole (the reference, once per thread)');
}

/** What opening cost before pages: the thread loaded, every item of it as the reply, parsed; returns the reply's bytes. */
function wholeThreadReply(dbFile: string): number {
  const db = openDatabase(dbFile);
  try {
    const frame = JSON.stringify({ id: 1, result: { items: displayItems(new ThreadStore(db).load(THREAD_ID)) } });
    JSON.parse(frame);
    return Buffer.byteLength(frame);
  } finally {
    db.close();
  }
}
