// Trust III, checkpoints: on a copy of the generated 20,000-file tree, the overhead a
// checkpoint adds to an agent step that edits one file and to a step whose command touches
// 1,000 files, against the floor of `git add -A && git write-tree` on a warm index of the
// same tree (another copy, its own GIT_DIR in a temp folder); restoring 1,000 files; and
// what the history costs on disk.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CheckpointHistory } from '../../src-main/core/checkpoints/history';
import { CheckpointRecorder } from '../../src-main/core/checkpoints/recorder';
import { CheckpointStore } from '../../src-main/core/checkpoints/store';
import type { TreeData } from './gen-data';
import { formatMb, formatMs, formatRatio, median } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';

const ONE_FILE_TARGET_MS = 150;
const RATIO_TARGET = 1.5;
const RESTORE_TARGET_MS = 2_000;
const TOUCHED = 1_000;

/** Files of the tree the checkpoints snapshot (not .git, not ignored folders), relative. */
function visibleFiles(root: string): string[] {
  const out: string[] = [];
  const skip = new Set(['.git', 'node_modules', 'dist', 'coverage', '.cache', 'logs']);
  const walk = (dir: string, rel: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (skip.has(e.name)) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.isFile() && !e.name.endsWith('.log') && fs.statSync(path.join(dir, e.name)).size < 1_000_000) out.push(r);
    }
  };
  walk(root, '');
  return out.sort();
}

function gitFloor(workTree: string, gitDir: string): number {
  const start = performance.now();
  const r = spawnSync('sh', ['-c', 'git add -A && git write-tree'], { cwd: workTree, env: { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: workTree }, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`git floor failed: ${r.stderr.toString().trim()}`);
  return ms;
}

export async function benchCheckpoints(report: Report, tree: TreeData, options: BenchOptions): Promise<void> {
  const section = report.section('Trust III · checkpoints');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-cp-'));
  try {
    progress('checkpoints: copying the tree twice (ours, and git with its own GIT_DIR)');
    const ours = path.join(work, 'ours');
    const theirs = path.join(work, 'git-tree');
    const gitDir = path.join(work, 'git-dir');
    fs.cpSync(tree.dir, ours, { recursive: true, verbatimSymlinks: true });
    fs.cpSync(tree.dir, theirs, { recursive: true, verbatimSymlinks: true });
    // The tree's own .git is a sample; the floor gets a repository of its own outside the tree.
    fs.rmSync(path.join(theirs, '.git'), { recursive: true, force: true });
    execFileSync('git', ['init', '-q'], { env: { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: theirs } });
    gitFloor(theirs, gitDir);
    gitFloor(theirs, gitDir);

    const store = CheckpointStore.open(path.join(work, 'data'));
    const recorder = new CheckpointRecorder(store, ours);
    const history = new CheckpointHistory(store);
    const info = (n: number) => ({ threadId: 'bench', messageIndex: n, messageLine: `run ${n}` });
    progress('checkpoints: first snapshot of the tree (baseline)');
    const baseStart = performance.now();
    await recorder.step(info(0), 'all', async () => undefined);
    const baselineMs = performance.now() - baseStart;
    const baselineBytes = store.storedBytes();

    const files = visibleFiles(ours).filter((f) => f.endsWith('.ts') || f.endsWith('.md'));
    const oneFile = files[Math.floor(files.length / 2)]!;
    const touched = files.slice(0, TOUCHED);
    if (touched.length < TOUCHED) throw new Error(`only ${touched.length} text files in the tree`);

    const editOne = (root: string, run: number): void => fs.appendFileSync(path.join(root, oneFile), `// edit ${run}\n`);
    const touchMany = (root: string, run: number): void => {
      for (const f of touched) fs.appendFileSync(path.join(root, f), `// touched ${run}\n`);
    };

    progress('checkpoints: one-file steps');
    const runs = Math.max(options.runs, 5);
    const knownPath: number[] = [];
    const walked: number[] = [];
    const floorOne: number[] = [];
    for (let i = 1; i <= runs; i++) {
      // The step itself (the edit) is timed apart and taken out: what remains is the checkpoint.
      let editMs = 0;
      const t0 = performance.now();
      await recorder.step({ ...info(i), tool: 'edit_file' }, [oneFile], async () => {
        const s = performance.now();
        editOne(ours, i);
        editMs = performance.now() - s;
      });
      knownPath.push(performance.now() - t0 - editMs);
      const t1 = performance.now();
      await recorder.step({ ...info(i), tool: 'execute' }, 'all', async () => {
        const s = performance.now();
        editOne(ours, 1000 + i);
        editMs = performance.now() - s;
      });
      walked.push(performance.now() - t1 - editMs);
      editOne(theirs, i);
      floorOne.push(gitFloor(theirs, gitDir));
    }

    progress(`checkpoints: steps whose command touches ${TOUCHED} files`);
    const many: number[] = [];
    const floorMany: number[] = [];
    let lastMany: string | undefined;
    for (let i = 1; i <= Math.min(runs, 5); i++) {
      let editMs = 0;
      const t0 = performance.now();
      const outcome = await recorder.step({ ...info(100 + i), tool: 'execute' }, 'all', async () => {
        const s = performance.now();
        touchMany(ours, i);
        editMs = performance.now() - s;
      });
      many.push(performance.now() - t0 - editMs);
      if (outcome.changes.length !== TOUCHED) throw new Error(`expected ${TOUCHED} changes, recorded ${outcome.changes.length}`);
      lastMany = outcome.checkpoint?.id;
      touchMany(theirs, i);
      floorMany.push(gitFloor(theirs, gitDir));
    }

    progress(`checkpoints: restoring ${TOUCHED} files`);
    const restores: number[] = [];
    for (let i = 0; i < 3 && lastMany; i++) {
      const t0 = performance.now();
      const r = await history.restoreTo(lastMany, 'ask');
      restores.push(performance.now() - t0);
      if (r.restored.length !== TOUCHED) throw new Error(`restored ${r.restored.length} files, expected ${TOUCHED}`);
      await history.undoRestore(r.checkpoint!.id, 'ask');
    }

    const one = median(knownPath);
    const oneWalk = median(walked);
    const f1 = median(floorOne);
    const m = median(many);
    const fm = median(floorMany);
    const restore = median(restores);
    section.rows.push({
      name: 'edit_file step, one file: checkpoint overhead',
      ours: formatMs(one),
      floor: `${formatMs(f1)} git`,
      ratio: formatRatio(one, f1),
      target: `≤ ${RATIO_TARGET}× floor, < ${ONE_FILE_TARGET_MS} ms`,
      result: `${verdict(one <= RATIO_TARGET * f1)} ${verdict(one < ONE_FILE_TARGET_MS)}`,
    });
    section.rows.push({
      name: '  same edit by a command (whole-folder stat walk)',
      ours: formatMs(oneWalk),
      floor: `${formatMs(f1)} git`,
      ratio: formatRatio(oneWalk, f1),
      target: '—',
    });
    section.rows.push({
      name: `command step touching ${TOUCHED.toLocaleString('en')} files: overhead`,
      ours: formatMs(m),
      floor: `${formatMs(fm)} git`,
      ratio: formatRatio(m, fm),
      target: `≤ ${RATIO_TARGET}× floor`,
      result: verdict(m <= RATIO_TARGET * fm),
    });
    section.rows.push({
      name: `restore ${TOUCHED.toLocaleString('en')} files`,
      ours: formatMs(restore),
      target: `< ${RESTORE_TARGET_MS / 1000} s`,
      result: verdict(restore < RESTORE_TARGET_MS),
    });
    const dbBytes = ['checkpoints.db', 'checkpoints.db-wal'].reduce((n, f) => n + (fs.statSync(path.join(work, 'data', f), { throwIfNoEntry: false })?.size ?? 0), 0);
    section.rows.push({ name: 'first snapshot of the tree (once per folder)', ours: formatMs(baselineMs), target: '—' });
    section.rows.push({
      name: 'disk: content kept after the first snapshot',
      ours: `${formatMb(baselineBytes)} of ${formatMb(files.length ? tree.bytes : 0)} tree`,
      target: '—',
    });
    section.rows.push({ name: `disk: checkpoints.db after ${runs * 2 + Math.min(runs, 5) + 6} checkpoints`, ours: formatMb(dbBytes), target: '—' });
    section.notes.push(
      `${tree.files.toLocaleString('en')} files; floor = git add -A && git write-tree with a warm index after the same change; overhead = step time minus the change itself; medians of ${runs} runs`,
    );
    store.close();
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
