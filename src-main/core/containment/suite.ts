// One containment conformance suite for every execution path (SPEC §7 "One containment for
// everything Deepdesk starts"; DESIGN: a new way of running something is done when it
// passes): the same adversarial cases, judged by effect as the person, for each path. A
// group a path does not apply to is skipped with the path's reason in its name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainedRun, ExecutionPath } from './types';
import type { ContainmentCase } from './case';
import { useConformanceEnvironment } from './environment';
import { personUsesGit, readText } from './effects';
import { makeScene } from './scene';
import { gitCases } from './git-cases';
import { fileKindCases, hostSocketCases, linkCases, protectedCases, protectedLinkCases, secretCases } from './file-cases';
import { applicationCases, credentialCases, processTreeCases, todoCases, trustedScriptCases } from './process-cases';
import { worktreeCases } from './worktree-cases';

export type { ContainedRun, ExecutionPath, Person, Scene, TrustedScriptRunner } from './types';

export const CONTAINMENT_CASES: readonly ContainmentCase[] = [
  ...gitCases,
  ...linkCases,
  ...protectedCases,
  ...protectedLinkCases,
  ...secretCases,
  ...hostSocketCases,
  ...fileKindCases,
  ...credentialCases,
  ...processTreeCases,
  ...applicationCases,
  ...trustedScriptCases,
  ...worktreeCases,
];

/**
 * Per case: a fresh scene, its runs, its check, then everything it left running and the scene
 * are gone. CONTAINMENT_VERBOSE=1 prints each run's output (to see why an attack failed).
 */
const CASE_TIMEOUT_MS = 120_000;

/** `extraCases`: cases of this path's own, run after the shared ones (a candidate for the shared list once every path passes it). */
export function runContainmentConformance(path: ExecutionPath, extraCases: readonly ContainmentCase[] = []): void {
  describe(`containment conformance: ${path.name}`, () => {
    const env = useConformanceEnvironment();
    beforeAll(() => path.setUp(env), CASE_TIMEOUT_MS);
    afterAll(() => path.tearDown(), CASE_TIMEOUT_MS);

    it('control: a benign script runs in the folder, its writes are there, the person’s git sees them', async () => {
      const scene = makeScene(env);
      const runs: ContainedRun[] = [];
      try {
        runs.push(await path.run(scene, 'echo benign > made.txt\necho "said $((6 * 7))"\nready', { timeoutS: 60 }));
        expect(runs[0]!.output).toContain('said 42');
        expect(await readText(path.person, scene, 'made.txt')).toBe('benign\n');
        expect((await path.person.sh('git status --porcelain', scene.project)).stdout).toContain('?? made.txt');
        expect(await personUsesGit(path.person, scene)).toBe('');
      } finally {
        await endAll(runs);
        scene.remove();
      }
    }, CASE_TIMEOUT_MS);

    for (const c of [...CONTAINMENT_CASES, ...extraCases]) {
      const notHere = path.notApplicable[c.group] ?? path.notApplicableCases?.[c.name];
      const unavailable = c.unavailable?.();
      const title = `${c.group}: ${c.name}`;
      if (notHere !== undefined) {
        it.skip(`${title} — not applicable: ${notHere}`, () => undefined);
        continue;
      }
      if (unavailable !== undefined) {
        it.skip(`${title} — ${unavailable}`, () => undefined);
        continue;
      }
      it(title, async () => {
        const scene = makeScene(env, c.scene);
        const runs: ContainedRun[] = [];
        try {
          if (c.act) runs.push(...(await c.act({ scene, person: path.person, env, path })));
          for (const script of c.scripts?.(scene, env) ?? []) runs.push(await path.run(scene, script, { timeoutS: c.timeoutS ?? 60 }));
          if (process.env.CONTAINMENT_VERBOSE) for (const [i, run] of runs.entries()) console.log(`--- ${path.name} / ${c.name} / run ${i + 1}\n${run.output}\n${run.blocked ?? ''}`);
          await c.check({ scene, person: path.person, env, path, runs });
        } finally {
          await endAll(runs);
          scene.remove();
        }
      }, CASE_TIMEOUT_MS);
    }

    for (const t of todoCases) {
      if (path.notApplicable[t.group] !== undefined) continue;
      it.todo(`${t.group}: ${t.name} — needs ${t.needs}`);
    }
  });
}

async function endAll(runs: readonly ContainedRun[]): Promise<void> {
  for (const run of runs) await run.end().catch(() => undefined);
}
