// The step boundary of git mounts (SPEC §13): the writes and edits one model turn made on a
// git mount become one commit, pushed before their results reach the model. Each call runs
// tagged with its id, so the changes it made are known; its result is held back until the
// push ran and replaced by an `Error: ` naming the remote when the push (or the replay of
// that call's change on the remote's newer commits) failed.

import type { GitMountBackend } from '../../backends/git-mount/git-mount';
import { withMountOperationTag } from '../../backends/git-mount/git-mount';
import { errorText, type ToolOutput } from '../../tools/tool';
import type { Middleware } from '../middleware';

export interface MountedGit {
  /** The mount's prefix, e.g. `/docs/`. */
  prefix: string;
  backend: GitMountBackend;
}

export function mountStepsMiddleware(mounts: () => readonly MountedGit[]): Middleware {
  return {
    name: 'mount-steps',
    wrapToolCall: (_ctx, info, next) => withMountOperationTag(info.call.id, () => next(info.call)),
    holdsToolResult: (_ctx, call) => mounts().some((m) => m.backend.hasPending(call.id)),
    async afterToolCalls(ctx, results) {
      const outputs: ToolOutput[] = results.map((r) => r.output);
      let changed = false;
      for (const { backend } of mounts()) {
        // Before committing: afterwards nothing is pending any more.
        const touched = results.map((r, i) => (backend.hasPending(r.call.id) ? i : -1)).filter((i) => i >= 0);
        const step = await backend.commitStep(ctx.signal, results.map((r) => r.call.id));
        if (step.error !== undefined) {
          for (const i of touched) outputs[i] = errorText(step.error);
          changed ||= touched.length > 0;
        }
        for (const failure of step.failed ?? []) {
          const i = results.findIndex((r) => r.call.id === failure.tag);
          if (i < 0) continue;
          outputs[i] = errorText(failure.error);
          changed = true;
        }
      }
      return changed ? outputs : undefined;
    },
  };
}

/**
 * Commits and pushes what the last call changed on each git mount (a `tools` session: each
 * call is a step). The reason to report as the call's `Error: `, or undefined when all went well.
 */
export async function commitMountSteps(mounts: readonly MountedGit[], signal?: AbortSignal): Promise<string | undefined> {
  const problems: string[] = [];
  for (const { backend } of mounts) {
    const step = await backend.commitStep(signal);
    if (step.error !== undefined) problems.push(step.error);
    for (const failure of step.failed ?? []) problems.push(failure.error);
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/**
 * A `tools` session's call with its result (each call is a step, SPEC §13): its changes on
 * every git mount are committed and pushed before the output is written; a failed commit,
 * push or replay makes the output an `Error: ` naming it.
 */
export async function commitToolStep(mounts: readonly MountedGit[], result: ToolOutput, signal?: AbortSignal): Promise<ToolOutput> {
  const problem = await commitMountSteps(mounts, signal);
  return problem === undefined ? result : errorText(problem);
}
