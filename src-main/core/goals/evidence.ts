// The evidence pack (SPEC §21): what the host itself saw when it checked the goal — each verify
// step's command, exit code and output tail from its own run, the diff against where the goal
// started and the files touched. The grader is sent exactly this (and the criteria), never
// the agent's own words.

import { DIFF_CHARS, OUTPUT_TAIL_CHARS, type EvidencePack, type Goal, type StepResult, type VerifyStep } from './goal';

/** A verify step as the host ran it, in the thread's place under its rules. */
export interface StepRun {
  /** Null when it did not finish. */
  exitCode: number | null;
  output: string;
  /** Why it did not run (refused by the rules, the mode, or the person). */
  refused?: string;
}

/**
 * Where the goal's thread works, as the gate is handed it (no I/O of the gate's own): its
 * verify steps run through the thread's own command path (the agent's execute, under its
 * rules, approvals and containment); the folder's tree and diff come from its git.
 */
export interface GoalPlace {
  runStep(step: VerifyStep): Promise<StepRun>;
  /** The folder's current tree (a git tree id, the index untouched), or undefined where it cannot be taken. */
  tree(): Promise<string | undefined>;
  /** The diff from `base` to the folder now, and the files it touches. */
  diff(base: string): Promise<{ diff: string; files: string[] } | undefined>;
  /** What the host saw change since `since` (the goal's start) that git does not: ignored entries, by the checkpoint log. */
  ignoredChanges?(since: string): Promise<Array<{ path: string; folder: boolean }>>;
}

/** The end of a text, at most `chars`, cut at a line where it can be. */
export function tail(text: string, chars = OUTPUT_TAIL_CHARS): string {
  if (text.length <= chars) return text;
  const cut = text.slice(text.length - chars);
  const nl = cut.indexOf('\n');
  return `…${nl >= 0 && nl < 200 ? cut.slice(nl + 1) : cut}`;
}

/** Runs every verify step (one after another: they may share files) and takes the diff. */
export async function gatherEvidence(goal: Goal, place: GoalPlace, now: () => Date = () => new Date()): Promise<EvidencePack> {
  const steps: StepResult[] = [];
  for (const step of goal.verify) {
    const started = performance.now();
    let run: StepRun;
    try {
      run = await place.runStep(step);
    } catch (err) {
      run = { exitCode: null, output: '', refused: `it could not run: ${err instanceof Error ? err.message : String(err)}` };
    }
    steps.push({
      command: step.command,
      expectedExitCode: step.expectedExitCode,
      exitCode: run.exitCode,
      passed: run.refused === undefined && run.exitCode === step.expectedExitCode,
      outputTail: tail(run.output),
      ...(run.refused !== undefined ? { refused: run.refused } : {}),
      durationMs: Math.round(performance.now() - started),
    });
  }
  const changed = goal.base !== undefined ? await place.diff(goal.base).catch(() => undefined) : undefined;
  // A checker in an ignored tools folder runs as much as a tracked one: its change is named, never left to git's view.
  const ignored = (await place.ignoredChanges?.(goal.startedAt).catch(() => undefined)) ?? [];
  return {
    at: now().toISOString(),
    steps,
    diff: changed === undefined ? null : changed.diff.length > DIFF_CHARS ? `${changed.diff.slice(0, DIFF_CHARS)}\n…` : changed.diff,
    ...(changed !== undefined && changed.diff.length > DIFF_CHARS ? { diffTruncated: true } : {}),
    filesTouched: [...(changed?.files ?? []), ...ignored.map((i) => (i.folder ? `${i.path}/ (changed inside an ignored folder)` : `${i.path} (an ignored file, changed)`))],
  };
}

/** Whether every verify step exited as expected. */
export function allStepsPass(evidence: EvidencePack): boolean {
  return evidence.steps.every((step) => step.passed);
}

const SUCCESS_CLAIM =
  /\b(all|every)\s+(the\s+)?(tests?|checks?|specs?)\s+(now\s+)?(pass|passes|passed|passing|succeed|succeeded|are green|green)\b|\b(tests?|checks?|build)\s+(now\s+)?(pass|passes|passed|passing|succeed|succeeds|succeeded|is green|are green)\b|\b(done|fixed|complete|completed|finished|resolved|works|working)\b|\bgoal (is )?(achieved|met)\b/i;
const NEGATED = /\b(not|n't|never|cannot|can't|unable|still fail|still failing|fails|failing)\b/i;

/**
 * Whether the agent's final message says the work is done or the checks pass (without saying
 * it is not): such a message while a verify step fails is a contradicted claim.
 */
export function claimsSuccess(text: string): boolean {
  const sentences = text.split(/(?<=[.!?\n])\s+/);
  return sentences.some((s) => SUCCESS_CLAIM.test(s) && !NEGATED.test(s));
}
