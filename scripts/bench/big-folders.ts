// Issue 13 · big folders: `deepdesk serve` ready time and memory on an empty folder, the
// generated 20,000-file tree and a 100,000-file folder, in the same run (the empty folder
// is the baseline of the ratio); and how soon the file tree hears of a change on disk.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FilesystemBackend } from '../../src-main/core/backends/filesystem/filesystem';
import { WorkspaceService } from '../../src-main/app/workspace/workspace-service';
import { formatMs, formatRatio, median, withTimeout } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';
import { startServe } from './serve-process';

/** How long after the ready line the memory is read: the watcher subscribes in the background meanwhile. */
const SETTLE_MS = 3_000;

interface ServeSample {
  readyMs: number;
  rssBytes: number;
}

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) * 1024;
}

async function sampleServe(repo: string, folder: string | undefined): Promise<ServeSample> {
  const serve = await startServe(repo, { ...(folder ? { folder } : {}), timeoutMs: 60_000 });
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { readyMs: serve.readyMs, rssBytes: rssOf(serve.pid) };
  } finally {
    await serve.stop();
  }
}

async function treeUpdateLatency(folder: string, runs: number): Promise<number[]> {
  let heard: ((paths: string[]) => void) | null = null;
  const service = new WorkspaceService({ folder, backend: new FilesystemBackend({ rootDir: folder }), onChange: (changes) => heard?.(changes.map((c) => c.path)) });
  await service.start();
  const probe = path.join(folder, 'pkg5', 'mod500');
  const times: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const name = `bench-probe-${i}.ts`;
      const seen = new Promise<void>((resolve) => {
        heard = (paths) => {
          if (paths.includes(`/pkg5/mod500/${name}`)) resolve();
        };
      });
      const start = performance.now();
      fs.writeFileSync(path.join(probe, name), 'x');
      await withTimeout(seen, 10_000, 'file-tree update');
      times.push(performance.now() - start);
      fs.rmSync(path.join(probe, name));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  } finally {
    heard = null;
    await service.dispose();
  }
  return times;
}

export async function benchBigFolders(report: Report, options: BenchOptions, repo: string, folders: { tree20k: string; folder100k: string }): Promise<void> {
  if (os.platform() !== 'linux') throw new Error('reads memory from /proc: Linux only');
  const section = report.section('Issue 13 · big folders (deepdesk serve start-up, file-tree updates)');
  const contenders = { empty: undefined, '20,000 files': folders.tree20k, '100,000 files': folders.folder100k } as const;
  const samples: Record<string, ServeSample[]> = { empty: [], '20,000 files': [], '100,000 files': [] };
  const runs = Math.min(options.runs, 3);
  // Interleaved rounds, so a busy moment of the machine hits every folder alike.
  for (let round = 0; round < runs; round++) {
    for (const [name, folder] of Object.entries(contenders)) {
      progress(`serve ready + RSS: ${name} (round ${round + 1} of ${runs})`);
      samples[name]!.push(await sampleServe(repo, folder));
    }
  }
  const ready = (name: string) => median(samples[name]!.map((s) => s.readyMs));
  const rss = (name: string) => median(samples[name]!.map((s) => s.rssBytes));
  for (const name of Object.keys(contenders)) {
    const big = name === '100,000 files';
    section.rows.push({
      name: `serve ready, ${name}`,
      ours: formatMs(ready(name)),
      ...(name === 'empty' ? {} : { ratio: `${formatRatio(ready(name), ready('empty'))} empty` }),
      ...(big ? { target: '< 1 s', result: verdict(ready(name) < 1000) } : {}),
    });
    section.rows.push({
      name: `  RSS ${SETTLE_MS / 1000} s after ready, ${name}`,
      ours: `${(rss(name) / 1024 / 1024).toFixed(0)} MB`,
      ...(name === 'empty' ? {} : { ratio: `${formatRatio(rss(name), rss('empty'))} empty` }),
      ...(big ? { target: '< 250 MB', result: verdict(rss(name) < 250 * 1024 * 1024) } : {}),
    });
  }
  progress('file-tree update latency on the 100,000-file folder');
  const latency = median(await treeUpdateLatency(folders.folder100k, Math.max(5, options.runs)));
  section.rows.push({ name: 'file-tree update after a write on disk (100,000 files)', ours: formatMs(latency), target: '< 300 ms', result: verdict(latency < 300) });
  section.notes.push('ready = spawn of the built bin → its "Deepdesk is running at" line; RSS read from /proc after the watcher had time to subscribe');
  section.notes.push('file-tree update = write of a new file → WorkspaceService reports it (native watcher + 75 ms debounce), in process');
}
