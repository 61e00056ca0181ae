// Issue 17 · Scale, checkpoints of a command: the extra time recording adds to an `execute`
// step whose real sandboxed command writes one file, on folders of 1,000, 20,000 and 100,000
// files, against `git status` on the same folder (its own GIT_DIR, warm index). A command on
// the write layer snapshots only what it wrote; a command without one (here: outside the
// sandbox) is walked before and after, for comparison.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalShellBackend } from '../../src-main/core/backends/local-shell';
import { CheckpointRecorder } from '../../src-main/core/checkpoints/recorder';
import { CheckpointStore } from '../../src-main/core/checkpoints/store';
import { createSandbox } from '../../src-main/core/sandbox';
import { writeLayerTools } from '../../src-main/core/sandbox/write-layer';
import { formatMs, formatRatio, median } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';

const RATIO_TARGET = 2;
const COMMAND = 'echo run > bench-command-out.txt';

function gitStatusMs(folder: string, gitDir: string): number {
  const env = { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: folder };
  const t0 = performance.now();
  execFileSync('git', ['status', '--porcelain', '-uall'], { env, maxBuffer: 256 * 1024 * 1024 });
  return performance.now() - t0;
}

function smallFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-1k-'));
  for (let d = 0; d < 10; d++) {
    fs.mkdirSync(path.join(dir, `pkg${d}`));
    for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(dir, `pkg${d}`, `file${f}.ts`), `export const v${f} = ${d * 100 + f};\n`);
  }
  return dir;
}

export async function benchCommandCheckpoints(report: Report, options: BenchOptions, folders: { tree20k: string; folder100k: string }): Promise<void> {
  const section = report.section('Issue 17 · Scale: checkpoints of an execute step (real sandboxed command writing one file)');
  if (!(await writeLayerTools())) {
    section.rows.push({ name: 'no write layer on this machine', ours: 'skipped' });
    return;
  }
  const small = smallFolder();
  const runs = Math.max(options.runs, 5);
  try {
    for (const [label, folder] of [
      ['1k files', small],
      ['20k files', folders.tree20k],
      ['100k files', folders.folder100k],
    ] as const) {
      progress(`command checkpoints: ${label}`);
      const work = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-cmdcp-'));
      const gitDir = path.join(work, 'git');
      const out = path.join(folder, 'bench-command-out.txt');
      try {
        execFileSync('git', ['init', '-q'], { env: { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: folder } });
        execFileSync('git', ['add', '-A'], { env: { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: folder }, maxBuffer: 256 * 1024 * 1024 });
        const sandbox = await createSandbox({ projectDir: fs.realpathSync(folder), dataDir: path.join(work, 'data') });
        if (!sandbox) throw new Error('no sandbox');
        const backend = new LocalShellBackend({ rootDir: folder, env: { HOME: work }, sandbox });
        const store = CheckpointStore.open(path.join(work, 'data'));
        const recorder = new CheckpointRecorder(store, folder);
        const info = (n: number) => ({ threadId: 'bench', messageIndex: n, messageLine: `run ${n}`, tool: 'execute' });
        const plain: number[] = [];
        const layered: number[] = [];
        const walked: number[] = [];
        const floor: number[] = [];
        gitStatusMs(folder, gitDir);
        for (let i = 0; i < runs; i++) {
          let t0 = performance.now();
          await backend.execute(COMMAND, { timeoutS: 60 });
          plain.push(performance.now() - t0);
          fs.rmSync(out, { force: true });

          t0 = performance.now();
          await recorder.step(info(i), 'command', () => backend.execute(COMMAND, { timeoutS: 60 }));
          layered.push(performance.now() - t0);
          fs.rmSync(out, { force: true });

          if (i < 3) {
            // Without a layer (outside the sandbox): walked before and after; the first walk is the baseline.
            const t1 = performance.now();
            await recorder.step(info(100 + i), 'command', () => backend.execute(COMMAND, { timeoutS: 60, sandbox: false }));
            if (i > 0) walked.push(performance.now() - t1);
            fs.rmSync(out, { force: true });
          }
          floor.push(gitStatusMs(folder, gitDir));
        }
        store.close();
        const extra = Math.max(0, median(layered) - median(plain));
        const f = median(floor);
        section.rows.push({
          name: `${label}: extra time of checkpoints (write layer)`,
          ours: `${formatMs(extra)} (${formatMs(median(layered))} vs ${formatMs(median(plain))})`,
          floor: `${formatMs(f)} git status`,
          ratio: formatRatio(extra, f),
          target: `≤ ${RATIO_TARGET}× git status`,
          result: verdict(extra <= RATIO_TARGET * f),
        });
        if (walked.length > 0) section.rows.push({ name: `  ${label}: same command outside the sandbox (walked)`, ours: formatMs(median(walked)), floor: `${formatMs(f)} git status`, ratio: formatRatio(median(walked), f), target: '—' });
      } finally {
        fs.rmSync(out, { force: true });
        fs.rmSync(work, { recursive: true, force: true });
      }
    }
    section.notes.push('the sandboxed command itself still looks for repositories in the whole folder before each run (the git surface, Trust IV): that cost is in both columns, not in the extra time');
    section.notes.push(`medians of ${runs} runs; extra time = recorded step minus the same sandboxed command unrecorded; machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores at the end`);
  } finally {
    fs.rmSync(small, { recursive: true, force: true });
  }
}
