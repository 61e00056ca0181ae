// Child process of the read benchmark: reads windows of a big file with one implementation
// and prints one JSON line with the times and the process's peak RSS (VmHWM), so the
// memory measured is that of the read alone.
//   read-child.mjs ours|ref FILE OFFSET LIMIT

import fs from 'node:fs';
import path from 'node:path';
import { FilesystemBackend } from '../../src-main/core/backends/filesystem/filesystem';

export interface ReadChildResult {
  /** First read in a fresh process (the file is scanned once for its line count). */
  coldMs: number;
  /** The same window again. */
  warmMs?: number;
  /** The last lines of the file, after the first read. */
  endMs?: number;
  lines: number;
  totalLines?: number;
  baselineHwm: number;
  peakHwm: number;
  error?: string;
}

function hwmBytes(): number {
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

interface Reader {
  read(p: string, offset: number, limit: number): Promise<{ error?: string; content?: string; totalLines?: number }>;
}

async function ours(root: string): Promise<Reader> {
  const backend = new FilesystemBackend({ rootDir: root });
  return {
    async read(p, offset, limit) {
      const r = await backend.read(p, offset, limit);
      return { ...(r.error ? { error: r.error } : {}), content: r.fileData?.content ?? '', ...(r.totalLines !== undefined ? { totalLines: r.totalLines } : {}) };
    },
  };
}

async function reference(root: string): Promise<Reader> {
  const { FilesystemBackend: Ref } = await import('deepagents');
  const backend = new Ref({ rootDir: root, virtualMode: true });
  return {
    async read(p, offset, limit) {
      const r = await backend.read(p, offset, limit);
      const content = typeof r.content === 'string' ? r.content : '';
      return { ...(r.error ? { error: r.error } : {}), content, ...(r.totalLines !== undefined ? { totalLines: r.totalLines } : {}) };
    },
  };
}

async function main(): Promise<void> {
  const [impl, file, offsetArg, limitArg] = process.argv.slice(2);
  if (!file || (impl !== 'ours' && impl !== 'ref')) throw new Error('usage: read-child ours|ref FILE OFFSET LIMIT');
  const offset = Number(offsetArg);
  const limit = Number(limitArg);
  const reader = impl === 'ours' ? await ours(path.dirname(file)) : await reference(path.dirname(file));
  const virtual = '/' + path.basename(file);
  const baselineHwm = hwmBytes();
  const t0 = performance.now();
  const first = await reader.read(virtual, offset, limit).catch((err: unknown) => ({ error: String(err), content: '', totalLines: undefined }));
  const coldMs = performance.now() - t0;
  const result: ReadChildResult = { coldMs, lines: first.content ? first.content.split('\n').length : 0, baselineHwm, peakHwm: 0 };
  if (first.error) result.error = first.error.split('\n')[0]!;
  else {
    if (first.totalLines !== undefined) result.totalLines = first.totalLines;
    const t1 = performance.now();
    await reader.read(virtual, offset, limit);
    result.warmMs = performance.now() - t1;
    if (first.totalLines !== undefined) {
      const t2 = performance.now();
      await reader.read(virtual, Math.max(0, first.totalLines - limit), limit);
      result.endMs = performance.now() - t2;
    }
  }
  result.peakHwm = hwmBytes();
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((err: unknown) => {
  process.stdout.write(JSON.stringify({ coldMs: NaN, lines: 0, baselineHwm: NaN, peakHwm: hwmBytes(), error: String(err).split('\n')[0] }) + '\n');
  process.exitCode = 0;
});
