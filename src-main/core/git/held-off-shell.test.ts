// The held-off settings as a POSIX sh prelude (for git somewhere else), run by a real sh in a
// real repository: every key of the table the config sets gets its neutral value, after the
// settings always held; a key that `-c` cannot name is refused, not passed over.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALWAYS_HELD } from './held-off-config';
import { HELD_OFF_REFUSED, heldOffGitPrelude } from './held-off-shell';

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'deepdesk-held-off-shell-'));
  execFileSync('git', ['init', '-q'], { cwd: repo });
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

const config = (key: string, value: string): void => void execFileSync('git', ['config', key, value], { cwd: repo });
/** The options the prelude leaves, one per line. */
const prelude = () => spawnSync('/bin/sh', ['-c', `${heldOffGitPrelude()}\nprintf '%s\\n' "$@"`], { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: repo, GIT_CONFIG_NOSYSTEM: '1' } });

describe('heldOffGitPrelude', () => {
  it('gives every program the config names its value that runs nothing, after the settings always held', () => {
    config('filter.Same.clean', 'touch ran');
    config('diff.x y.textconv', 'touch ran');
    config('merge.m.driver', 'touch ran');
    config('core.editor', 'touch ran');
    config('user.name', 'not code');
    const run = prelude();
    expect(run.status).toBe(0);
    const options = run.stdout.split('\n').slice(0, -1);
    expect(options.slice(0, ALWAYS_HELD.length * 2)).toEqual(ALWAYS_HELD.flatMap((setting) => ['-c', setting]));
    const given = options.slice(ALWAYS_HELD.length * 2).filter((o) => o !== '-c');
    expect(given.sort()).toEqual(['core.editor=:', 'diff.x y.textconv=', 'filter.Same.clean=', 'merge.m.driver=git merge-file --marker-size=%L %A %O %B']);
  });

  it('refuses a key with `=` in its name (`-c` would split it elsewhere)', () => {
    config('filter.a=b.clean', 'touch ran');
    const run = prelude();
    expect(run.status).toBe(HELD_OFF_REFUSED);
    expect(run.stdout).toBe('');
  });
});
