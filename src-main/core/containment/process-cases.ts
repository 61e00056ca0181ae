// Cases about the process itself (SPEC §7, §9, §11): Deepdesk's credentials in its
// environment, its process tree outliving the run, a write layer applied halfway (a full
// disk, an interrupt), and the script a trusted entry runs rewritten by a sandboxed command.
import { expect } from 'vitest';
import { kindOf, processesWith, readText, valuesIn } from './effects';
import { canMountSmallDisk, PROJECT_FILES } from './scene';
import type { ContainmentCase } from './case';
import type { TrustedScriptSource } from './types';

export const credentialCases: readonly ContainmentCase[] = [
  {
    group: 'credentials',
    name: "Deepdesk's credentials (PGPASSWORD, provider keys, ANTHROPIC_AUTH_TOKEN, OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, LANGSMITH_API_KEY, a postgres URL's password) are in no environment it starts",
    scripts: () => [['env > env.txt', "tr '\\0' '\\n' < /proc/self/environ > environ.txt", 'env', 'ready'].join('\n')],
    async check({ person, scene, env, runs }) {
      const values = Object.values(env.credentials).filter((v) => !v.startsWith('postgres://'));
      const seen = (await readText(person, scene, 'env.txt')) + (await readText(person, scene, 'environ.txt'));
      // The harness ran the script and could read what it wrote.
      expect(seen, 'the environment the script saw').toMatch(/^PATH=/m);
      expect(valuesIn(seen, values), "credentials in the run's environment").toEqual([]);
      for (const run of runs) expect(valuesIn(run.output, values), "credentials in the run's output").toEqual([]);
    },
  },
];

/** The sleeps a process-tree script leaves behind, each a way of leaving: in the background, double-forked, a session of its own, nohup. */
const leftBehind = (token: string) => [1, 2, 3, 4, 5].map((n) => `sleep ${token}${n}`);

export const processTreeCases: readonly ContainmentCase[] = [
  {
    group: 'process-tree',
    name: 'the whole process tree ends at the time limit (background, double fork, setsid, nohup)',
    timeoutS: 5,
    scripts: (s) => {
      const [a, b, c, d, e] = leftBehind(s.token);
      return [[`${a} &`, `( ${b} & ) &`, `setsid ${c} &`, `nohup ${d} >/dev/null 2>&1 &`, 'echo started > tree-started', 'ready', e].join('\n')];
    },
    async check({ person, scene, runs, patienceMs = 60_000 }) {
      // A server is ended by its stop, which is its time limit.
      for (const run of runs) await run.end();
      // The harness: the tree was started before the limit (else nothing would be left to see).
      expect(await readText(person, scene, 'tree-started'), 'the script got to start its tree').toBe('started\n');
      await expect.poll(() => processesWith(person, scene, `sleep ${scene.token}`), { timeout: patienceMs, interval: 200 }).toEqual([]);
    },
  },
];

/**
 * SEAM (to be exported by the write layer's owner): `onApplyStep` in
 * src-main/core/sandbox/write-layer.ts, `(step: { rel: string; index: number }) => void`,
 * called before each entry of a layer is applied, so that a test can interrupt the
 * application there (abort the run's signal, or throw as a crash would) and then check the
 * folder. Until it exists the interrupt case is a todo.
 */
export const APPLY_STEP_SEAM = 'onApplyStep (src-main/core/sandbox/write-layer.ts)';

export const applicationCases: readonly ContainmentCase[] = [
  {
    group: 'application',
    name: 'a disk that fills up while the run’s writes are applied: nothing half-applied, and the result says blocked',
    // Fits the repository and a little more, not the big file.
    scene: { smallDiskBytes: 1024 * 1024 },
    unavailable: () => (canMountSmallDisk() ? undefined : 'no small file system can be mounted here (needs root)'),
    scripts: () => [['echo changed > a.txt', 'echo new > new.txt', 'head -c 3000000 /dev/zero > zz-big.bin', 'echo done'].join('\n')],
    async check({ person, scene, runs }) {
      const applied = {
        'a.txt': await readText(person, scene, 'a.txt'),
        'new.txt': await kindOf(person, scene, 'new.txt'),
        'zz-big.bin': await kindOf(person, scene, 'zz-big.bin'),
      };
      expect(applied, 'what of the run reached the folder').toEqual({ 'a.txt': PROJECT_FILES['a.txt'], 'new.txt': 'missing', 'zz-big.bin': 'missing' });
      expect(runs[0]?.blocked, 'the result says the run was blocked').toMatch(/^\[Sandbox blocked/);
    },
  },
];

/** Cases that need a seam the product does not have yet: registered as todo, naming it. */
export const todoCases: readonly { group: ContainmentCase['group']; name: string; needs: string }[] = [
  {
    group: 'application',
    name: 'an interrupt while the run’s writes are applied: nothing half-applied, and the result says blocked',
    needs: APPLY_STEP_SEAM,
  },
];

function trustedScriptCase(by: TrustedScriptSource, name: string): ContainmentCase {
  return {
    group: 'trusted-script',
    name,
    async act({ path, scene }) {
      const runner = path.trustedScript;
      if (!runner) throw new Error(`${path.name} declares trusted-script cases but has no trustedScript runner`);
      await runner.install(scene, 'scripts/check.sh', by);
      const rewrite = [
        `printf '#!/bin/sh\\n${scene.fire} rewritten\\n' > scripts/check.sh`,
        `printf '#!/bin/sh\\n${scene.fire} replaced\\n' > check.new && chmod +x check.new && mv -f check.new scripts/check.sh`,
        `mv scripts scripts-away && mkdir scripts && printf '#!/bin/sh\\n${scene.fire} swapped\\n' > scripts/check.sh && chmod +x scripts/check.sh`,
      ].join('\n');
      const run = await runner.neighbour.run(scene, rewrite, { timeoutS: 60 });
      await runner.trigger(scene);
      return [run];
    },
    async check({ person, scene }) {
      expect(await readText(person, scene, scene.fired), 'the rewritten script ran as the person').toBe('');
      // The harness: the trusted script itself did run (it writes this), unless it stopped loading.
      const ran = await readText(person, scene, `${scene.root}/trusted-ran`);
      expect(['', 'trusted\n']).toContain(ran);
    },
  };
}

export const trustedScriptCases: readonly ContainmentCase[] = [
  trustedScriptCase('folder', 'the script a trusted entry runs cannot be rewritten by a sandboxed command of the same folder (or stops loading)'),
  trustedScriptCase('person', "the folder's script a person's own hook runs ($CLAUDE_PROJECT_DIR/…) cannot be rewritten by a sandboxed command of the folder"),
];
