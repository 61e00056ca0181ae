// Issue 22: the git remote mount. A write+push round trip to a file:// bare repository
// (one write_file and commitStep: stage, commit, push), and grep over a 10,000-file mount
// next to FilesystemBackend grep on the same tree on disk (the mount's work tree).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FilesystemBackend } from '../../src-main/core/backends/filesystem/filesystem';
import { GitMountBackend } from '../../src-main/core/backends/git-mount/git-mount';
import { errorText, formatMs, formatRatio, median, timeInterleaved, timeRuns } from './measure';
import type { BenchOptions } from './options';
import { progress, type Report } from './report';

const FILES = 10_000;
const ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

function git(args: string[], cwd?: string): void {
  const res = spawnSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], { cwd, env: ENV, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
}

/** A bare repository holding 10,000 small source files in 100 folders (needle in every 100th). */
function makeRemote(root: string): string {
  const work = path.join(root, 'seed');
  for (let d = 0; d < 100; d++) {
    const dir = path.join(work, `pkg${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES / 100; f++) {
      const lines = Array.from({ length: 30 }, (_, i) => (i === 15 && f === 7 ? `export const needle_${d} = ${i};` : `export const value${i} = ${i * f + d};`));
      fs.writeFileSync(path.join(dir, `mod${f}.ts`), lines.join('\n') + '\n');
    }
  }
  const bare = path.join(root, 'remote.git');
  git(['init', '-q', '-b', 'main', work]);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'seed'], work);
  git(['init', '-q', '--bare', '-b', 'main', bare]);
  git(['--git-dir', bare, 'config', 'uploadpack.allowFilter', 'true']);
  git(['push', '-q', bare, 'HEAD:refs/heads/main'], work);
  fs.rmSync(work, { recursive: true, force: true });
  return bare;
}

export async function benchGitMount(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 22 · git mount (file:// remote)');
  progress('git mount: 10k-file remote, clone, write+push round trip, grep vs on disk');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-gitmount-')));
  let mount: GitMountBackend | undefined;
  try {
    const bare = makeRemote(root);
    mount = new GitMountBackend({ url: `file://${bare}`, cacheRoot: path.join(root, 'mounts'), env: ENV, refreshIntervalMs: 60_000 });
    const m = mount;
    const cloneStart = performance.now();
    const first = await m.ls('/');
    if (first.error) throw new Error(first.error);
    const cloneMs = performance.now() - cloneStart;
    section.rows.push({ name: `first use: partial clone + checkout of ${FILES.toLocaleString('en')} files`, ours: formatMs(cloneMs), target: '—' });

    let n = 0;
    const roundTrip = await timeRuns(
      async () => {
        n++;
        const w = await m.write('/notes/bench.md', `round ${n}\n`);
        if (w.error) throw new Error(w.error);
        const step = await m.commitStep();
        if (!step.committed) throw new Error(step.error ?? 'nothing committed');
      },
      { runs: Math.max(options.runs, 10), budgetMs: 20_000 },
    );
    section.rows.push({ name: 'write+push round trip (git mount, file:// remote): write_file + commit + push', ours: formatMs(median(roundTrip)), target: '—' });

    const disk = new FilesystemBackend({ rootDir: m.workTreeDir! });
    const count = (r: { error?: string; matches?: unknown[] }) => {
      if (r.error) throw new Error(r.error);
      return `${r.matches?.length ?? 0} matches`;
    };
    const results = await timeInterleaved(
      {
        mount: { run: () => m.grep('needle_').then(count) },
        disk: { run: () => disk.grep('needle_').then(count) },
      },
      { runs: Math.max(options.runs, 10), budgetMs: 20_000 },
    );
    for (const [name, r] of Object.entries(results)) if (r.error !== undefined) section.rows.push({ name: `grep ${name}`, ours: `error: ${r.error}` });
    const ms = (name: string) => median(results[name]!.times);
    section.rows.push({
      name: `grep over a 10k-file git mount (${results.mount!.detail}) (ratio vs FilesystemBackend on the same tree)`,
      ours: formatMs(ms('mount')),
      reference: `${formatMs(ms('disk'))} on disk`,
      ratio: formatRatio(ms('mount'), ms('disk')),
      target: '—',
    });
    section.notes.push('git mount: GitMountBackend on a file:// bare repository (uploadpack.allowFilter, so the clone is partial); grep reads the work tree, the refresh interval set long so no fetch falls inside the timing; the reference is FilesystemBackend on that same work tree');
  } catch (err) {
    section.rows.push({ name: 'git mount', ours: `error: ${errorText(err)}` });
  } finally {
    await mount?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
