// How a containment case is declared: a group (paths opt out of groups, with a reason), the
// script(s) an attacker would run under the path, and the effect that must not be there
// afterwards, judged as the person.
import type { ConformanceEnvironment, ContainedRun, ExecutionPath, CaseGroup, Person, Scene, SceneOptions } from './types';

export interface CaseContext {
  scene: Scene;
  person: Person;
  env: ConformanceEnvironment;
  path: ExecutionPath;
  /** The case's runs, in order (their effects final; a server still running). */
  runs: ContainedRun[];
  /**
   * How long a check waits for the state containment brings (the tree gone): 60 s unless
   * given. Where the attack is meant to land (attacks-land) that state never comes, and a
   * few seconds without it show it landed.
   */
  patienceMs?: number;
}

export interface ContainmentCase {
  group: CaseGroup;
  name: string;
  scene?: SceneOptions;
  /** One script per run, run in order under the path (two runs: something made in one is used in the next). */
  scripts?(scene: Scene, env: ConformanceEnvironment): string[];
  /** Instead of `scripts`: what the case does with the path (e.g. through its trustedScript runner). */
  act?(ctx: Omit<CaseContext, 'runs'>): Promise<ContainedRun[]>;
  /** Seconds per run (default 60). */
  timeoutS?: number;
  /** Fails (with expect) when the effect shows the attack got through. */
  check(ctx: CaseContext): Promise<void>;
  /** Why the case cannot run on this machine (it is then skipped saying so), or undefined. */
  unavailable?(): string | undefined;
}

/** Shell text: writes an executable git hook (or any program) at `file` that runs the marker program. */
export function firingProgram(scene: Scene, file: string): string {
  return `printf '#!/bin/sh\\n${scene.fire} "$0" "$@"\\nexit 0\\n' > ${file} && chmod +x ${file}`;
}

/** The hooks git runs on what the person does (status, checkout, commit). */
export const GIT_HOOK_NAMES = ['post-checkout', 'pre-commit', 'post-commit', 'reference-transaction', 'prepare-commit-msg', 'commit-msg'];

/** Shell text: every hook of GIT_HOOK_NAMES in `dir`, firing. */
export function firingHooks(scene: Scene, dir: string): string {
  return [`mkdir -p ${dir}`, ...GIT_HOOK_NAMES.map((name) => firingProgram(scene, `${dir}/${name}`))].join('\n');
}
