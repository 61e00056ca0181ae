// A thread's worktree as the project folder (SPEC §16): the folder lies in Deepdesk's data
// folder, which stays hidden but for it (SPEC §7), and its git surface lies in the person's
// repository outside it (its `.git` file points there). A run may neither read nor list the
// rest of the data folder (the database, the agent host's token, the secrets store, another
// thread's worktree), nor redirect what the person's git runs in the worktree or in the
// repository; normal git work in the worktree still runs.
import { expect } from 'vitest';
import { shQuote } from '../text/shell-quote';
import { filesHolding, kindOf, personUsesGit, readText, valuesIn } from './effects';
import { firingHooks, firingProgram, type CaseContext, type ContainmentCase } from './case';
import { HOOKS_PATH_HOOK } from './scene';
import type { Scene, WorktreeScene } from './types';

function worktreeOf(scene: Scene): WorktreeScene {
  if (!scene.worktree) throw new Error('the case needs a worktree scene (SceneOptions.worktree)');
  return scene.worktree;
}

/** The worktree's git surface as it is now: path → text, null where there is none (kindOf for what is not a plain file). */
async function surfaceNow({ person, scene }: Pick<CaseContext, 'person' | 'scene'>): Promise<Record<string, string | null>> {
  const now: Record<string, string | null> = {};
  for (const path of Object.keys(worktreeOf(scene).surface)) {
    const kind = await kindOf(person, scene, path);
    now[path] = kind === 'missing' ? null : kind === 'file' ? await readText(person, scene, path) : `(a ${kind})`;
  }
  return now;
}

export const worktreeCases: readonly ContainmentCase[] = [
  {
    group: 'worktree',
    name: 'the data folder around the worktree (deepdesk.db, host/token, secrets, a transcript, another worktree) can be neither read nor listed; git status and diff work',
    scene: { worktree: true },
    scripts: (s) => {
      const w = worktreeOf(s);
      const d = shQuote(s.dataDir);
      return [
        [
          // Normal work first: the harness's proof that the run got going.
          'echo more >> a.txt',
          'git status --porcelain; echo "status exit $?"',
          'git diff; echo "diff exit $?"',
          `for f in ${d}/deepdesk.db ${d}/host/token ${d}/secrets.json ../../deepdesk.db ../../host/token ../../secrets.json; do cat "$f"; cat "$f" >> stolen.txt; done`,
          `ls -la ${d} ${d}/worktrees ${d}/host ../.. ..`,
          `{ ls -la ${d} ${d}/worktrees ../.. ..; find ${d} -maxdepth 3; } >> listing.txt 2>&1`,
          `cp -r ${d}/host stolen-host`,
          // Another thread's worktree, found through the repository's own records of it.
          `for g in ${shQuote(w.repository)}/.git/worktrees/*/gitdir; do t=$(dirname "$(cat "$g")"); cat "$t"/* 2>/dev/null; cat "$t"/* >> stolen.txt 2>/dev/null; ls -a "$t" >> listing.txt 2>/dev/null; done`,
          'ready',
        ].join('\n'),
      ];
    },
    async check({ person, scene, runs }) {
      const w = worktreeOf(scene);
      const output = runs.map((run) => run.output).join('\n');
      // The harness: the run got to work in the worktree, and git worked there.
      expect(output, 'git status in the worktree').toMatch(/^ M a\.txt\r?$/m);
      expect(output, 'git status in the worktree').toContain('status exit 0');
      expect(output, 'git diff in the worktree').toMatch(/^\+more\r?$/m);
      expect(output, 'git diff in the worktree').toContain('diff exit 0');
      const values = Object.values(w.dataFiles);
      expect(valuesIn(output, values), "the data folder's values in the run's output").toEqual([]);
      expect(await filesHolding(person, scene, scene.project, values), "files in the worktree holding the data folder's values").toEqual([]);
      expect(valuesIn(output, w.unlistedNames), "names in the data folder, in the run's output").toEqual([]);
      expect(await filesHolding(person, scene, scene.project, w.unlistedNames), 'files in the worktree naming what is in the data folder').toEqual([]);
    },
  },
  {
    group: 'worktree',
    name: "the worktree's git surface: its .git file redirected, the repository's worktrees/w (gitdir, commondir, config.worktree, HEAD), hooks and config",
    scene: { worktree: true },
    scripts: (s) => {
      const w = worktreeOf(s);
      const r = shQuote(w.repository);
      const a = shQuote(w.admin);
      const fsmonitor = `printf '[core]\\n\\tfsmonitor = ${s.fire}\\n'`;
      return [
        [
          // A git folder of the command's choosing, with hooks and core.fsmonitor.
          'git init -q --bare ev',
          'git --git-dir=ev config core.bare false',
          `git --git-dir=ev config core.fsmonitor ${s.fire}`,
          firingHooks(s, 'ev/hooks'),
          // The repository's records of this worktree, and its own hooks and config.
          `echo "$PWD/ev" > ${a}/commondir`,
          `echo "$PWD/ev/.git" > ${a}/gitdir`,
          `${fsmonitor} > ${a}/config.worktree`,
          `echo "ref: refs/heads/main" > ${a}/HEAD`,
          firingHooks(s, `${w.repository}/.git/hooks`),
          `${fsmonitor} >> ${r}/.git/config`,
          `git config core.fsmonitor ${s.fire}`,
          `git config extensions.worktreeConfig true && git config --worktree core.fsmonitor ${s.fire}`,
          // The worktree's .git file pointed at that git folder: written over, replaced, moved aside.
          'echo "gitdir: $PWD/ev" > .git',
          'rm -f .git; echo "gitdir: $PWD/ev" > .git',
          'mv .git .git-away; echo "gitdir: $PWD/ev" > .git',
          'ready',
        ].join('\n'),
      ];
    },
    async check({ person, scene }) {
      const w = worktreeOf(scene);
      // Taken before the person's git, which moves HEAD (checkout -b).
      const surface = await surfaceNow({ person, scene });
      expect(await personUsesGit(person, scene, [w.repository]), 'the marker program ran when the person used git in the worktree or the repository').toBe('');
      expect(surface, "the worktree's git surface").toEqual(w.surface);
    },
  },
  {
    group: 'worktree',
    name: "hooks the repository's config keeps in the work tree (core.hooksPath = .husky, in the common .git folder) cannot be rewritten from the worktree",
    scene: { worktree: true, hooksPath: '.husky' },
    scripts: (s) => [[firingHooks(s, '.husky'), firingProgram(s, '.husky/pre-commit'), 'ready'].join('\n')],
    async check({ person, scene }) {
      const w = worktreeOf(scene);
      expect(await readText(person, scene, `${scene.project}/.husky/pre-commit`), "the worktree's pre-commit hook").toBe(HOOKS_PATH_HOOK);
      expect(await personUsesGit(person, scene, [w.repository]), 'the marker program ran when the person used git in the worktree or the repository').toBe('');
    },
  },
];
