// Where a goal's gate takes the folder's tree and diff (SPEC §21): the folder's git, with a
// temporary index (the person's index, stash and branches untouched). A folder that is not a
// git repository, or one that is not on this computer, has no diff (the pack says so).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GoalPlace } from '../../core/goals/evidence';
import { gitEnv, runGit } from '../../core/git/run-git';

const TIMEOUT_MS = 30_000;

export function gitGoalFolder(folder: string, env: NodeJS.ProcessEnv = process.env): Pick<GoalPlace, 'tree' | 'diff'> {
  const git = (args: string[], indexFile?: string) => runGit(args, { cwd: folder, env: gitEnv(env), timeoutMs: TIMEOUT_MS, ...(indexFile ? { indexFile } : {}) });
  const tree = async (): Promise<string | undefined> => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-goal-index-'));
    try {
      const index = join(dir, 'index');
      const inside = await git(['rev-parse', '--is-inside-work-tree']);
      if (inside.code !== 0 || inside.stdout.trim() !== 'true') return undefined;
      const added = await git(['add', '-A', '--', '.'], index);
      if (added.code !== 0) return undefined;
      const written = await git(['write-tree'], index);
      return written.code === 0 ? written.stdout.trim() : undefined;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return {
    tree,
    diff: async (base) => {
      const now = await tree();
      if (now === undefined) return undefined;
      const [diff, names] = await Promise.all([git(['diff', '--no-color', '--no-ext-diff', base, now]), git(['diff', '--name-only', base, now])]);
      if (diff.code !== 0 || names.code !== 0) return undefined;
      return { diff: diff.stdout, files: names.stdout.split('\n').filter((line) => line !== '') };
    },
  };
}
