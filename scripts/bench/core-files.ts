// Issue 2, files: a late window of a 1 GB file (time and peak memory, in a child process),
// one edit of a 50 MB file, and StoreBackend grep over 10,000 memories.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FilesystemBackend } from '../../src-main/core/backends/filesystem/filesystem';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import { StoreBackend } from '../../src-main/core/backends/store/store';
import { EDIT_MARKER, type EditData, type HugeData } from './gen-data';
import { type Contender, errorText, formatMb, formatMs, formatRatio, median, timeInterleaved, timeRuns, withTimeout } from './measure';
import type { BenchOptions } from './options';
import type { ReadChildResult } from './read-child';
import { loadReference } from './reference';
import { progress, verdict, type Report, type Section } from './report';
import { generateText, makeRng, word } from './text-gen';

const READ_OFFSET = 1_000_000;
const READ_LIMIT = 100;
const READ_MEMORY_TARGET = 100 * 1024 * 1024;
const CHILD_TIMEOUT_MS = 180_000;

function runReadChild(impl: 'ours' | 'ref', file: string): Promise<ReadChildResult> {
  const script = fileURLToPath(new URL('./read-child.mjs', import.meta.url));
  return withTimeout(
    new Promise<ReadChildResult>((resolve, reject) => {
      const child = spawn(process.execPath, [script, impl, file, String(READ_OFFSET), String(READ_LIMIT)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('close', (code, signal) => {
        const last = out.trim().split('\n').pop() ?? '';
        try {
          resolve(JSON.parse(last) as ReadChildResult);
        } catch {
          reject(new Error(`read child ${impl} ended (${signal ?? code}) without a result: ${err.trim().split('\n').pop() ?? ''}`));
        }
      });
      setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS).unref();
    }),
    CHILD_TIMEOUT_MS + 5_000,
    `read child ${impl}`,
  );
}

/** The gist of an error: its last clause, e.g. "Invalid string length". */
function shortError(text: string): string {
  const last = text.split(': ').pop() ?? text;
  return last.length > 40 ? `${last.slice(0, 37)}...` : last;
}

async function benchRead(section: Section, huge: HugeData, options: BenchOptions): Promise<void> {
  progress(`read 100 lines at offset ${READ_OFFSET.toLocaleString('en')} of the 1 GB file (child processes)`);
  const runs: ReadChildResult[] = [];
  let failure: string | undefined;
  for (let i = 0; i < Math.min(options.runs, 3); i++) {
    try {
      runs.push(await runReadChild('ours', huge.file));
    } catch (err) {
      failure = errorText(err);
      break;
    }
  }
  const ok = runs.filter((r) => !r.error);
  const refRun = await runReadChild('ref', huge.file).catch((err: unknown) => ({ error: errorText(err) }) as Partial<ReadChildResult>);
  const refText = refRun.error ? `fails: ${shortError(refRun.error)}` : formatMs(refRun.coldMs ?? NaN);
  const refMem = refRun.peakHwm ? `peak ${formatMb(refRun.peakHwm)}` : 'n/a';
  if (ok.length === 0) {
    section.rows.push({ name: 'read late window of 1 GB file', ours: `error: ${failure ?? runs[0]?.error ?? 'no result'}`, reference: refText, target: '—', result: 'n/a' });
    return;
  }
  const cold = median(ok.map((r) => r.coldMs));
  const warm = median(ok.map((r) => r.warmMs ?? NaN));
  const end = median(ok.map((r) => r.endMs ?? NaN));
  const peak = Math.max(...ok.map((r) => r.peakHwm));
  const base = Math.max(...ok.map((r) => r.baselineHwm));
  section.rows.push({
    name: 'read 100 lines @ offset 1,000,000 of 1 GB, first read',
    ours: formatMs(cold),
    reference: refText,
    ratio: !refRun.error && refRun.coldMs ? formatRatio(cold, refRun.coldMs) + ' ref' : '',
    target: '—',
  });
  section.rows.push({ name: '  same window again (line index cached)', ours: formatMs(warm), target: '—' });
  section.rows.push({ name: `  last 100 lines (line ${ok[0]!.totalLines?.toLocaleString('en') ?? '?'}), index cached`, ours: formatMs(end), target: '—' });
  section.rows.push({
    name: '  peak RSS of the reading process (VmHWM)',
    ours: `${formatMb(peak)} (node alone ${formatMb(base)})`,
    reference: refMem,
    target: '< 100 MB',
    result: verdict(peak < READ_MEMORY_TARGET),
  });
  section.notes.push(`read: ${ok.length} fresh child processes, median; ${formatMb(huge.bytes)}, ${huge.lines.toLocaleString('en')} lines, in the page cache; the first read scans the file once for its line count`);
}

async function benchEdit(section: Section, edit: EditData, options: BenchOptions): Promise<void> {
  progress('edit one string in a 50 MB file');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-edit-'));
  try {
    const target = path.join(work, 'edit-50mb.ts');
    const before = () => fs.copyFileSync(edit.file, target);
    const ours = new FilesystemBackend({ rootDir: work });
    const contenders: Record<string, Contender> = {
      ours: {
        before,
        run: async () => {
          const r = await ours.edit('/edit-50mb.ts', EDIT_MARKER, 'EDITED_MARKER_0001');
          if (r.error || r.occurrences !== 1) throw new Error(r.error ?? `occurrences ${r.occurrences}`);
          return '';
        },
      },
    };
    const ref = await loadReference();
    if (ref.ok) {
      const backend = new ref.module.FilesystemBackend({ rootDir: work, virtualMode: true });
      contenders.ref = {
        before,
        run: async () => {
          const r = await backend.edit('/edit-50mb.ts', EDIT_MARKER, 'EDITED_MARKER_0001');
          if (r.error) throw new Error(r.error);
          return '';
        },
      };
    }
    const r = await timeInterleaved(contenders, { runs: options.runs, budgetMs: 20_000 });
    const oursMs = r.ours?.error ? NaN : median(r.ours?.times ?? []);
    const refMs = r.ref && !r.ref.error ? median(r.ref.times) : NaN;
    const refText = !r.ref ? 'n/a' : r.ref.error ? `error: ${r.ref.error}` : formatMs(refMs);
    const oursError = r.ours?.error ?? '';
    section.rows.push({
      name: `edit: one replacement in a ${formatMb(edit.bytes)} file`,
      ours: oursError ? `error: ${oursError}` : formatMs(oursMs),
      reference: refText,
      ratio: Number.isFinite(oursMs) && Number.isFinite(refMs) ? `${formatRatio(oursMs, refMs)} ref` : '',
      target: '—',
    });
    section.notes.push('edit: ours writes atomically (temp file + rename) and checks UTF-8/binary; deepagents overwrites in place');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const MEMORIES = 10_000;
const STORE_PATTERNS: [string, string][] = [
  ['rare', 'kubernetesMigrationPlan'],
  ['common', 'user'],
  ['absent', 'qzxv_absent_9k'],
  ['2-char', 'zq'],
];

function memories(): { path: string; content: string }[] {
  const rng = makeRng(10_000);
  const out: { path: string; content: string }[] = [];
  const folders = ['projects', 'people', 'preferences', 'decisions', 'notes'];
  for (let i = 0; i < MEMORIES; i++) {
    let content = generateText(rng, 'md', 400 + Math.floor(rng() * 1_600));
    if (i % 2_000 === 7) content += `\nSee kubernetesMigrationPlan for the rollout order.\n`;
    if (i % 500 === 3) content += `\nAbbreviation: zq means "zone quota".\n`;
    out.push({ path: `/${folders[i % folders.length]}/${word(rng)}-${Math.floor(i / 50)}/${word(rng)}-${i}.md`, content });
  }
  return out;
}

async function benchStore(section: Section, options: BenchOptions): Promise<void> {
  progress(`StoreBackend: write ${MEMORIES.toLocaleString('en')} memories, then grep`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-store-'));
  const docs = memories();
  const db = openDatabase(path.join(dir, 'deepdesk.db'));
  try {
    const store = new StoreBackend({ db, namespace: 'memories' });
    const fillStart = performance.now();
    // The bulk path (one transaction per batch), as an import would use.
    for (let i = 0; i < docs.length; i += 1_000) {
      const batch = docs.slice(i, i + 1_000).map((d) => ({ path: d.path, content: new TextEncoder().encode(d.content) }));
      const failed = (await store.uploadFiles(batch)).find((r) => r.error);
      if (failed) throw new Error(`${failed.path}: ${failed.error}`);
    }
    const fillMs = performance.now() - fillStart;

    const ref = await loadReference();
    let refStore: { grep(p: string, path?: string | null, glob?: string | null, max?: number | null): Promise<{ error?: string; matches?: unknown[] }> } | null = null;
    let refNote = '';
    if (ref.ok) {
      try {
        const { InMemoryStore } = await import('@langchain/langgraph');
        const backend = new ref.module.StoreBackend({ store: new InMemoryStore(), namespace: ['memories'] });
        for (const d of docs) {
          const r = await backend.write(d.path, d.content);
          if (r.error) throw new Error(r.error);
        }
        refStore = backend;
      } catch (err) {
        refNote = `error: ${errorText(err)}`;
      }
    }
    for (const [kind, pattern] of STORE_PATTERNS) {
      let detail = '';
      const times = await timeRuns(async () => {
        const r = await store.grep(pattern, '/', undefined, 1000);
        if (r.error) throw new Error(r.error);
        detail = `${r.matches?.length ?? 0}${r.truncated ? '+' : ''} matches`;
      }, { runs: Math.max(options.runs, 10), budgetMs: 5_000 });
      const ms = median(times);
      let refMs = NaN;
      let refText = refNote || 'n/a';
      if (refStore) {
        const backend = refStore;
        try {
          refMs = median(
            await timeRuns(async () => {
              const r = await backend.grep(pattern, '/', null, 1000);
              if (r.error) throw new Error(r.error);
            }, { runs: options.runs, budgetMs: 10_000 }),
          );
          refText = formatMs(refMs);
        } catch (err) {
          refText = `error: ${errorText(err)}`;
        }
      }
      section.rows.push({
        name: `store grep ${kind} '${pattern}' → ${detail}`,
        ours: formatMs(ms),
        reference: refText,
        ratio: Number.isFinite(refMs) ? `${formatRatio(ms, refMs)} ref` : '',
        target: '< 20 ms',
        result: verdict(ms < 20),
      });
    }
    section.notes.push(`store: ${MEMORIES.toLocaleString('en')} memories in a SQLite file (WAL), FTS5 trigram index; filling ${MEMORIES.toLocaleString('en')} memories with uploadFiles took ${formatMs(fillMs)}; reference = deepagents StoreBackend on LangGraph's InMemoryStore`);
    store.close();
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchFiles(report: Report, data: { huge: HugeData; edit: EditData }, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 2 · big files and the memory store');
  await benchRead(section, data.huge, options).catch((err: unknown) => section.rows.push({ name: 'read late window of 1 GB file', ours: `error: ${errorText(err)}` }));
  await benchEdit(section, data.edit, options).catch((err: unknown) => section.rows.push({ name: 'edit 50 MB file', ours: `error: ${errorText(err)}` }));
  await benchStore(section, options).catch((err: unknown) => section.rows.push({ name: 'StoreBackend grep', ours: `error: ${errorText(err)}` }));
}
