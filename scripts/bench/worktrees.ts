// Issue 40: git worktrees for threads. Side by side, in interleaved rounds:
// - making a worktree of a 20,000-file repository (WorktreeService.create: checks, record,
//   `git worktree add`) beside `git worktree add -b` alone (goal ≤ 1.5×);
// - `Apply to folder` of a 100-file change (snapshots of both working trees, merge-tree, the
//   working tree moved to the merge) beside `git merge` of the same change, both three-way
//   merges on the same 20,000-file repository (goal ≤ 1.5×).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorktreeService } from '../../src-main/app/worktrees/worktree-service';
import { GitRunner } from '../../src-main/app/worktrees/worktree-git';
import { heldOffListings } from '../../src-main/core/git/run-git';
import { errorText, formatMs, formatRatio, median } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';

const FILES = 20_000;
const CHANGED = 100;
const GOAL = 1.5;
const ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };

function git(cwd: string, ...args: string[]): string {
  const res = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd, env: ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

/** A repository of 20,000 small source files in 200 folders, one commit. */
function makeRepo(dir: string): void {
  for (let d = 0; d < 200; d++) {
    const folder = path.join(dir, `pkg${Math.floor(d / 20)}`, `mod${d}`);
    fs.mkdirSync(folder, { recursive: true });
    for (let f = 0; f < FILES / 200; f++) {
      const lines = Array.from({ length: 20 }, (_, i) => `export const value${i} = ${i * f + d};`);
      fs.writeFileSync(path.join(folder, `file${f}.ts`), lines.join('\n') + '\n');
    }
  }
  fs.writeFileSync(path.join(dir, '.gitignore'), 'dist/\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
}

/** The files of the 100-file change: one in every other folder. */
const changedFiles = (): string[] => Array.from({ length: CHANGED }, (_, i) => path.join(`pkg${Math.floor((i * 2) / 20)}`, `mod${i * 2}`, 'file7.ts'));

function editFiles(dir: string, files: readonly string[], line: string): void {
  for (const file of files) fs.appendFileSync(path.join(dir, file), `${line}\n`);
}

interface Side {
  run: () => Promise<unknown>;
  /** Untimed, before each run: puts things back. */
  reset: () => Promise<void> | void;
}

/** Medians of each side, timed in rounds (one call of each per round, the first round untimed). */
async function interleave(sides: Record<string, Side>, runs: number, budgetMs: number): Promise<Record<string, number>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  let spent = 0;
  for (let round = 0; round <= runs && (round <= 2 || spent < budgetMs); round++) {
    for (const [name, side] of Object.entries(sides)) {
      await side.reset();
      const start = performance.now();
      await side.run();
      const ms = performance.now() - start;
      if (round > 0) {
        times[name]!.push(ms);
        spent += ms;
      }
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, t]) => [name, median(t)]));
}

function row(name: string, ours: number, git: number) {
  return {
    name,
    ours: formatMs(ours),
    floor: `${formatMs(git)} git`,
    ratio: formatRatio(ours, git),
    target: `≤ ${GOAL}× git`,
    result: verdict(ours <= GOAL * git),
  };
}

export async function benchWorktrees(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 40 · worktrees');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-worktrees-')));
  const repo = path.join(root, 'repo');
  const dataDir = path.join(root, 'data');
  const plain = path.join(root, 'plain');
  const service = new WorktreeService({ dataDir, env: ENV });
  try {
    progress(`worktrees: a ${FILES.toLocaleString('en')}-file repository`);
    makeRepo(repo);
    const runs = Math.max(options.runs, 5);

    progress('worktrees: making a worktree beside git worktree add');
    let n = 0;
    const dropOurs = async () => {
      for (const w of service.list()) await service.remove(w.name, { force: true });
    };
    const dropPlain = () => {
      if (!fs.existsSync(plain)) return;
      git(repo, 'worktree', 'remove', '--force', plain);
      git(repo, 'branch', '-D', 'plain');
    };
    const created = await interleave(
      {
        ours: { reset: dropOurs, run: () => service.create({ folder: repo, name: `bench-${++n}`, carry: false }) },
        git: { reset: dropPlain, run: async () => git(repo, 'worktree', 'add', '--quiet', '-b', 'plain', plain, 'HEAD') },
      },
      runs,
      30_000,
    );
    section.rows.push(row(`make a worktree of a ${FILES.toLocaleString('en')}-file repository (vs git worktree add alone)`, created.ours!, created.git!));
    await dropOurs();
    dropPlain();

    progress(`worktrees: Apply to folder of a ${CHANGED}-file change beside git merge`);
    // The worktree's change, committed on its branch; the person's branch moved on meanwhile
    // (another file), so both sides are three-way merges.
    const worktree = await service.create({ folder: repo, name: 'change', carry: false });
    editFiles(worktree.path, changedFiles(), '// changed in the worktree');
    git(worktree.path, 'commit', '-q', '-am', 'the change');
    fs.appendFileSync(path.join(repo, 'pkg9', 'mod199', 'file0.ts'), '// the person\n');
    git(repo, 'commit', '-q', '-am', 'meanwhile');
    const before = git(repo, 'rev-parse', 'HEAD').trim();
    const putBack = () => {
      git(repo, 'reset', '-q', '--hard', before);
    };
    const applied = await interleave(
      {
        ours: {
          reset: putBack,
          run: async () => {
            const result = await service.apply('change');
            if (result.applied.length !== CHANGED) throw new Error(`applied ${result.applied.length} files, conflicts: ${result.conflicts.join(', ')}`);
          },
        },
        git: { reset: putBack, run: async () => git(repo, 'merge', '-q', '--no-edit', 'deepdesk/change') },
      },
      runs,
      30_000,
    );
    putBack();
    // The held-off config verdict is kept between calls: a warm Apply lists the config no more.
    // The git processes of that Apply, each with its time, are listed in the note.
    const listedBefore = heldOffListings.count;
    const processes: string[] = [];
    const run = GitRunner.prototype.run;
    GitRunner.prototype.run = async function (this: GitRunner, args, call) {
      const start = performance.now();
      const result = await run.call(this, args, call);
      processes.push(`${args[0]} ${formatMs(performance.now() - start)}`);
      return result;
    };
    try {
      await service.apply('change');
    } finally {
      GitRunner.prototype.run = run;
    }
    const listedInApply = heldOffListings.count - listedBefore;
    putBack();
    section.rows.push(row(`Apply to folder: a ${CHANGED}-file change into a ${FILES.toLocaleString('en')}-file repository (vs git merge of it)`, applied.ours!, applied.git!));
    section.notes.push(
      `worktrees: WorktreeService on a generated repository of ${FILES.toLocaleString('en')} files in 200 folders; "make" is create() without carrying changes beside \`git worktree add -b\` of the same commit, each removed before the next round; ` +
        `"Apply to folder" merges a worktree branch's ${CHANGED}-file commit into the working tree (the person's branch has another commit since) beside \`git merge\` of that branch, the folder reset between rounds; a warm Apply listed the repository config ${listedInApply} time(s) (the held-off verdict is kept while the config files are unchanged) and ran ${processes.length} git processes (in the order they ended: ${processes.join(', ')})`,
    );
  } catch (err) {
    section.rows.push({ name: 'worktrees', ours: `error: ${errorText(err)}` });
  } finally {
    service.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
