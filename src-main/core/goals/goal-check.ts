// The id of the host's own call that runs a goal's verify step, made and read. Apart from
// goal.ts (zod's schemas, built when loaded): a run's client reads these ids and loads no zod.

import type { Goal, VerifyStep } from './goal';

/**
 * The kind of id of the host's own call that runs a verify step (`goal-verify-2of3`): it says
 * which step of how many it is, so its approval and its card say it is the goal's check.
 */
export function verifyCallKind(goal: Pick<Goal, 'verify'> | undefined, step: VerifyStep): string {
  const of = goal?.verify.length ?? 0;
  const at = goal?.verify.indexOf(step) ?? -1;
  return at < 0 ? 'goal-verify' : `goal-verify-${at + 1}of${of}`;
}

/** The verify step a call's id names (verifyCallKind), or undefined for any other call. */
export function goalCheckOf(toolCallId: string): { step: number; of: number } | undefined {
  const m = /^goal-verify-(\d+)of(\d+)-/.exec(toolCallId);
  return m === null ? undefined : { step: Number(m[1]), of: Number(m[2]) };
}
