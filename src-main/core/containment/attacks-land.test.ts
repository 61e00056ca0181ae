// The suite's cases are real attacks and their checks see them: run unconfined (paths/
// unconfined.ts), every case's check must fail, and the control must pass. A case that
// passed here would pass on any path for a harness reason, not for containment.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useConformanceEnvironment } from './environment';
import { readText } from './effects';
import { makeScene } from './scene';
import { CONTAINMENT_CASES } from './suite';
import { unconfinedShell } from './paths/unconfined';
import type { ContainedRun } from './types';

const path = unconfinedShell();

/** Ends, by pid, the sleeps a process-tree case left (the unconfined shell does not). */
function endLeftovers(token: string): void {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  for (const line of lines) {
    const match = /^\s*(\d+)\s+sleep (\d+)$/.exec(line);
    if (match && match[2]!.startsWith(token)) process.kill(Number(match[1]), 'SIGKILL');
  }
}

describe('every containment case is an attack its check sees (unconfined, each must land)', () => {
  const env = useConformanceEnvironment();
  beforeAll(() => path.setUp(env));
  afterAll(() => path.tearDown());

  it('control: the unconfined shell runs the script in the folder', async () => {
    const scene = makeScene(env);
    try {
      const run = await path.run(scene, 'echo benign > made.txt\necho "said $((6 * 7))"', { timeoutS: 30 });
      expect(run.output).toContain('said 42');
      expect(await readText(path.person, scene, 'made.txt')).toBe('benign\n');
    } finally {
      scene.remove();
    }
  });

  for (const c of CONTAINMENT_CASES) {
    if (path.notApplicable[c.group] !== undefined || c.act) continue;
    const unavailable = c.unavailable?.();
    it.skipIf(unavailable !== undefined)(`${c.group}: ${c.name}`, async () => {
      const scene = makeScene(env, c.scene);
      const runs: ContainedRun[] = [];
      try {
        for (const script of c.scripts?.(scene, env) ?? []) runs.push(await path.run(scene, script, { timeoutS: c.timeoutS ?? 60 }));
        let failure: unknown;
        try {
          await c.check({ scene, person: path.person, env, path, runs, patienceMs: 5_000 });
        } catch (err) {
          failure = err;
        }
        expect(failure, 'the check did not see the attack land').toBeDefined();
      } finally {
        endLeftovers(scene.token);
        scene.remove();
      }
    }, 120_000);
  }
});
