// Where a goal's gate takes the folder's tree and diff (SPEC §21): the folder's git, with a
// temporary index (the person's index, stash and branches untouched). A folder on this
// computer (a provider sandbox's worktree included) runs git here; a folder over SSH runs it
// there, through the thread's own command path. A folder without git has no diff. The diff is
// taken in a bare repository of its own that borrows the folder's objects: no attribute of the
// folder's (`test.sh -diff` would turn a rewrite of the verify script into "Binary files
// differ") shapes what the grader is sent; git tells text from binary by the bytes alone.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ShellBackend } from '../../core/backends/protocol';
import type { GoalPlace } from '../../core/goals/evidence';
import { PLAIN_DIFF } from '../../core/git/held-off-config';
import { heldOffGitPrelude } from '../../core/git/held-off-shell';
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
      const objects = await git(['rev-parse', '--path-format=absolute', '--git-path', 'objects']);
      if (objects.code !== 0) return undefined;
      const bare = mkdtempSync(join(tmpdir(), 'deepdesk-goal-diff-'));
      try {
        for (const dir of ['objects/info', 'refs']) mkdirSync(join(bare, dir), { recursive: true });
        writeFileSync(join(bare, 'HEAD'), 'ref: refs/heads/none\n');
        writeFileSync(join(bare, 'objects', 'info', 'alternates'), `${objects.stdout.trim()}\n`);
        const inBare = (args: string[]) => runGit([`--git-dir=${bare}`, ...args], { cwd: bare, env: gitEnv(env), timeoutMs: TIMEOUT_MS });
        const [diff, names] = await Promise.all([inBare([...PLAIN_DIFF.config, 'diff', ...PLAIN_DIFF.args, base, now, '--']), git(['diff', '--no-renames', '--no-relative', '--name-only', base, now, '--'])]);
        if (diff.code !== 0 || names.code !== 0) return undefined;
        return { diff: diff.stdout, files: names.stdout.split('\n').filter((line) => line !== '') };
      } finally {
        rmSync(bare, { recursive: true, force: true });
      }
    },
  };
}

/** A git object id, the only thing put into a command here (a base comes from the goal record). */
const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * git where the shell runs, holding off what the repository's config names (held-off-shell.ts):
 * no hook, filter, textconv, pager or other program of its runs, and none shapes the tree or
 * the diff the grader is sent. Its stderr is not the evidence.
 */
const GIT = 'git --no-pager "$@"';
const heldOff = (lines: string[]): string => [heldOffGitPrelude(), ...lines].join('\n');

/** The tree with a temporary index, taken where the shell runs (the person's index untouched). */
const TREE_SCRIPT = heldOff([
  `${GIT} rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 3`,
  'i="$(mktemp -d)" || exit 4',
  `GIT_INDEX_FILE="$i/index" ${GIT} add -A -- . >/dev/null 2>&1 && GIT_INDEX_FILE="$i/index" ${GIT} write-tree 2>/dev/null; c=$?`,
  'rm -rf "$i"',
  'exit $c',
]);

/** The diff of two trees in a bare repository that borrows the folder's objects and reads none of its attributes (see the top). */
const DIFF_WITHOUT_ATTRIBUTES = (base: string, now: string): string =>
  [
    `o="$(${GIT} rev-parse --path-format=absolute --git-path objects 2>/dev/null)" && b="$(mktemp -d)" || exit 4`,
    `mkdir -p "$b/objects/info" "$b/refs" && echo 'ref: refs/heads/none' > "$b/HEAD" && echo "$o" > "$b/objects/info/alternates" || { rm -rf "$b"; exit 4; }`,
    `(cd "$b" && ${GIT} --git-dir="$b" ${PLAIN_DIFF.config.join(' ')} diff ${PLAIN_DIFF.args.join(' ')} ${base} ${now} -- 2>/dev/null); c=$?`,
    'rm -rf "$b"',
    'exit $c',
  ].join('\n');

/** The folder's tree and diff by git where `shell` runs (a folder over SSH). */
export function shellGoalFolder(shell: ShellBackend): Pick<GoalPlace, 'tree' | 'diff'> {
  const run = (command: string) => shell.execute(command, { timeoutS: TIMEOUT_MS / 1000 });
  const tree = async (): Promise<string | undefined> => {
    const result = await run(TREE_SCRIPT);
    const id = result.output.trim();
    return result.exitCode === 0 && result.sandboxBlocked === undefined && OBJECT_ID.test(id) ? id : undefined;
  };
  return {
    tree,
    diff: async (base) => {
      if (!OBJECT_ID.test(base)) return undefined;
      const now = await tree();
      if (now === undefined) return undefined;
      const names = await run(heldOff([`${GIT} diff --no-renames --no-relative --name-only ${base} ${now} -- 2>/dev/null`]));
      const diff = await run(heldOff([DIFF_WITHOUT_ATTRIBUTES(base, now)]));
      // Something still ran there and was stopped by the sandbox: what came out is not evidence.
      if ([names, diff].some((r) => r.exitCode !== 0 || r.sandboxBlocked !== undefined)) return undefined;
      return { diff: diff.output, files: names.output.split('\n').filter((line) => line !== '') };
    },
  };
}
