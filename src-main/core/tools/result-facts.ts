// What core knows of a tool result beyond its text: kept with the result and shown by the
// window, never sent to the model (whose text stays as SPEC §3 words it).

/** Why a call did not run: a rule, a hook or the mode refused it, or the person rejected it or answered instead. */
export interface ToolRejection {
  by: 'person' | 'rule' | 'hook' | 'mode';
  /** What the person said when rejecting, or their answer (`answered`). */
  message?: string;
  /** The person did not run the call and answered instead. */
  answered?: boolean;
}

export interface ToolResultFacts {
  /** execute: the command's exit code (124 after its timeout); null: it was stopped before it ended. */
  exitCode?: number | null;
  /** execute: stopped at its timeout. */
  timedOut?: boolean;
  rejected?: ToolRejection;
  /** The result was too large for the context: it was saved to this file and the text is a notice with a preview. */
  evictedTo?: string;
  /** The call never finished (the run was stopped or the app closed while it ran). */
  interrupted?: boolean;
}

/** The facts of a result (a tool's output, a stored result), without anything else it carries. */
export function resultFacts(from: ToolResultFacts): ToolResultFacts {
  const facts: ToolResultFacts = {};
  if (from.exitCode !== undefined) facts.exitCode = from.exitCode;
  if (from.timedOut) facts.timedOut = true;
  if (from.rejected !== undefined) {
    const { by, message, answered } = from.rejected;
    facts.rejected = { by, ...(message !== undefined ? { message } : {}), ...(answered ? { answered: true } : {}) };
  }
  if (from.evictedTo !== undefined) facts.evictedTo = from.evictedTo;
  if (from.interrupted) facts.interrupted = true;
  return facts;
}
