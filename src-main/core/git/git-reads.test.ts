// The one table of what git reads, against what each guard does with it: every row is covered
// by the agent's asking writes and the sandbox's read-only and pinned lists exactly as the
// table says, and the live guard and the write layer act on the names it marks.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTECTED_PATHS, protectedPattern } from '../agent/permissions/protected-paths';
import { resolvePolicy } from '../sandbox/policy';
import { GIT_ACTIVATING_NAMES, GIT_FOLDER_LIVE_NAMES, GIT_LIVE_NAMES, GIT_READS, type GitRead } from './git-reads';
import { GIT_DIR_SURFACE } from './surface';

/** A path of the row as it is in a project, '/'-separated from the project folder. */
function pathsOf(row: GitRead): string[] {
  const name = row.name === '*' ? 'index' : row.name;
  return row.where === 'git-folder' ? [`.git/${name}`, `sub/.git/${name}`, `.git/${name}/x`] : [name, `sub/${name}`];
}

describe('what git reads: one table', () => {
  it("the agent's writes ask exactly where the table says, under the pattern it names", () => {
    for (const row of GIT_READS) {
      for (const path of pathsOf(row)) {
        expect(protectedPattern(`/${path}`, PROTECTED_PATHS), `${row.name}: /${path}`).toBe(row.agentAsks);
      }
    }
  });

  it('the sandbox keeps read-only and pins exactly what the table says, in the project folder', () => {
    const project = '/work/p';
    const policy = resolvePolicy({ projectDir: project, dataDir: '/data' }, { platform: 'linux', homes: ['/home/u'], env: {}, uid: 1000, hidden: [] });
    for (const row of GIT_READS.filter((r) => r.name !== '*')) {
      const path = join(project, row.where === 'git-folder' ? `.git/${row.name}` : row.name);
      expect(policy.protectedPaths.includes(path), `${row.name} read-only`).toBe(row.sandbox === 'read-only');
      expect(policy.pinnedPaths.includes(path), `${row.name} pinned`).toBe(row.sandbox === 'pinned');
    }
  });

  it('what the sandbox leaves writable in a git folder and is not compared after the run runs nothing', () => {
    for (const row of GIT_READS.filter((r) => r.sandbox === 'left')) expect(row.runsCode, row.name).toBe(false);
    for (const row of GIT_READS.filter((r) => r.sandbox !== 'read-only' || r.agentAsks === null)) expect(row.why, `${row.name}: the difference is written down`).toBeTruthy();
  });

  it('the surface walk, the live guard and the write layer act on the names the table marks', () => {
    const byName = new Map(GIT_READS.map((r) => [r.name, r]));
    for (const name of [...GIT_DIR_SURFACE.configs, ...GIT_DIR_SURFACE.pointers, ...GIT_DIR_SURFACE.folders.map(([n]) => n)]) expect(byName.get(name)?.runsCode, name).toBe(true);
    expect(GIT_DIR_SURFACE.configs).toEqual(['config', 'config.worktree']);
    expect([...GIT_DIR_SURFACE.pointers].sort()).toEqual(['commondir', 'gitdir']);
    expect(GIT_DIR_SURFACE.shape).toEqual({ file: 'HEAD', folders: ['objects', 'refs'] });
    expect([...GIT_DIR_SURFACE.notModules].sort()).toEqual(['hooks', 'info', 'logs', 'objects', 'refs']);
    for (const row of GIT_READS.filter((r) => r.name !== '*')) {
      expect(GIT_ACTIVATING_NAMES.has(row.name), `${row.name} activates`).toBe(row.activates);
      expect(GIT_LIVE_NAMES.has(row.name), `${row.name} live`).toBe(row.live !== 'periodic');
      expect(GIT_FOLDER_LIVE_NAMES.has(row.name), `${row.name} live in .git`).toBe(row.where === 'git-folder' && row.live === 'always');
    }
  });
});
