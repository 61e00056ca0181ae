// A goal (SPEC §21): an objective, its criteria and the verify steps the host runs itself, with
// a state the host grants from evidence. This module is the record and its state machine; it
// does no I/O (the gate is handed a place to run steps in and a grader to call).

import { z } from 'zod';

/** The states of a goal, exactly as SPEC §21 names them (JSON, `agents`, the header). */
export const GOAL_STATES = ['pursuing', 'achieved', 'unmet', 'stalled', 'budget-limited', 'paused', 'blocked'] as const;
export type GoalState = (typeof GOAL_STATES)[number];

/** A grader's verdict on one criterion. */
export const CRITERION_VERDICTS = ['satisfied', 'needs_revision', 'failed'] as const;
export type CriterionVerdict = (typeof CRITERION_VERDICTS)[number];

/** How many revision rounds a goal gets before it is `unmet` (Settings may change it). */
export const DEFAULT_MAX_ROUNDS = 3;

/** Characters of a step's output kept as its tail in the evidence pack. */
export const OUTPUT_TAIL_CHARS = 4_000;
/** Characters of the diff kept in the evidence pack. */
export const DIFF_CHARS = 20_000;

const verifyStepSchema = z.object({
  command: z.string().min(1).max(4_000),
  /** The exit code that means success. */
  expectedExitCode: z.number().int().min(0).max(255),
});
export type VerifyStep = z.infer<typeof verifyStepSchema>;

const criterionSchema = z.object({
  id: z.string().min(1).max(40),
  text: z.string().min(1).max(2_000),
  /** The latest grader's verdict, when there was one. */
  verdict: z.enum(CRITERION_VERDICTS).optional(),
  reason: z.string().max(4_000).optional(),
});
export type Criterion = z.infer<typeof criterionSchema>;

const stepResultSchema = z.object({
  command: z.string(),
  expectedExitCode: z.number().int(),
  /** Null: it did not finish (refused, cancelled, timed out). */
  exitCode: z.number().int().nullable(),
  passed: z.boolean(),
  /** The end of what it printed (the host's run, never the agent's). */
  outputTail: z.string(),
  /** Why it did not run (the rules refused it, nobody approved it). */
  refused: z.string().optional(),
  durationMs: z.number().nonnegative(),
});
export type StepResult = z.infer<typeof stepResultSchema>;

const evidenceSchema = z.object({
  at: z.string(),
  steps: z.array(stepResultSchema),
  /** `git diff` of the folder against where the goal started (cut to DIFF_CHARS); null where no diff could be made. */
  diff: z.string().nullable(),
  diffTruncated: z.boolean().optional(),
  filesTouched: z.array(z.string()),
});
export type EvidencePack = z.infer<typeof evidenceSchema>;

const contradictedClaimSchema = z.object({
  at: z.string(),
  round: z.number().int(),
  /** The agent's final message (clipped) that said it was done. */
  claim: z.string(),
  /** The verify steps that failed in the host's run right after it. */
  failingSteps: z.array(z.object({ command: z.string(), exitCode: z.number().int().nullable(), expectedExitCode: z.number().int() })),
});

const evaluationSchema = z.object({
  round: z.number().int(),
  at: z.string(),
  verdict: z.enum(['achieved', 'needs_revision', 'failed']),
  criteria: z.array(criterionSchema),
  durationMs: z.number().nonnegative(),
  graderTokens: z.object({ input: z.number(), output: z.number() }),
});
export type GoalEvaluation = z.infer<typeof evaluationSchema>;

export const goalSchema = z.object({
  objective: z.string().min(1).max(20_000),
  state: z.enum(GOAL_STATES),
  /** Why it is in its state (stalled, paused, blocked, unmet, budget-limited). */
  reason: z.string().optional(),
  criteria: z.array(criterionSchema).min(1),
  verify: z.array(verifyStepSchema),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  /** The folder's tree when the goal started (a git tree id): the diff is against it. */
  base: z.string().optional(),
  maxRounds: z.number().int().positive(),
  /** Gate evaluations that sent the agent back. */
  rounds: z.number().int().min(0),
  /** The latest evidence pack (what the grader was sent). */
  evidence: evidenceSchema.optional(),
  evaluations: z.array(evaluationSchema),
  contradictedClaims: z.array(contradictedClaimSchema),
  /** Steps in a row that did not change the folder's tree. */
  unchangedTurns: z.number().int().min(0),
  /** The tree after the latest step. */
  lastTree: z.string().optional(),
  /** How often each failing command (on the same tree) and each edit was repeated (the stall detector's counts). */
  repeats: z.record(z.string(), z.number().int()).optional(),
});
export type Goal = z.infer<typeof goalSchema>;

/** What a person or a command gives to start a goal. */
export const goalDraftSchema = z.object({
  objective: z.string().trim().min(1).max(20_000),
  criteria: z.array(z.string().trim().min(1).max(2_000)).min(1).max(20),
  verify: z.array(verifyStepSchema).max(20),
});
export type GoalDraft = z.infer<typeof goalDraftSchema>;

/** A goal that starts now from an accepted draft. */
export function startGoal(draft: GoalDraft, options: { base?: string; maxRounds?: number } = {}): Goal {
  const checked = goalDraftSchema.parse(draft);
  return {
    objective: checked.objective,
    state: 'pursuing',
    criteria: checked.criteria.map((text, i) => ({ id: `c${i + 1}`, text })),
    verify: checked.verify,
    startedAt: new Date().toISOString(),
    ...(options.base !== undefined ? { base: options.base, lastTree: options.base } : {}),
    maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS,
    rounds: 0,
    evaluations: [],
    contradictedClaims: [],
    unchangedTurns: 0,
  };
}

/** Moves a goal to an ending state with its reason (never back out of one but by the person). */
export function endGoal(goal: Goal, state: Exclude<GoalState, 'pursuing'>, reason: string, now = new Date()): void {
  goal.state = state;
  goal.reason = reason;
  if (state !== 'paused') goal.endedAt = now.toISOString();
}

/** A paused goal goes on (the person resumed it, or the host after a restart). */
export function resumeGoal(goal: Goal): void {
  goal.state = 'pursuing';
  delete goal.reason;
  delete goal.endedAt;
}

/**
 * The goal as `--json`, `threads export` and `agents --json` carry it (SPEC §21): its `state`,
 * its criteria, the evidence pack and `contradictedClaims`.
 */
export function goalJson(goal: Goal): GoalJson {
  return {
    objective: goal.objective,
    state: goal.state,
    ...(goal.reason !== undefined ? { reason: goal.reason } : {}),
    criteria: goal.criteria,
    verify: goal.verify,
    evidence: goal.evidence ?? null,
    contradictedClaims: goal.contradictedClaims,
    rounds: goal.rounds,
    maxRounds: goal.maxRounds,
    evaluations: goal.evaluations.map(({ round, at, verdict, durationMs, graderTokens }) => ({ round, at, verdict, durationMs, graderTokens })),
    startedAt: goal.startedAt,
    ...(goal.endedAt !== undefined ? { endedAt: goal.endedAt } : {}),
  };
}

export const goalJsonSchema = z.object({
  objective: z.string(),
  state: z.enum(GOAL_STATES),
  reason: z.string().optional(),
  criteria: z.array(criterionSchema),
  verify: z.array(verifyStepSchema),
  evidence: evidenceSchema.nullable(),
  contradictedClaims: z.array(contradictedClaimSchema),
  rounds: z.number(),
  maxRounds: z.number(),
  /** Each gate evaluation: its verdict, wall time (verify steps and grader) and the grader's tokens. */
  evaluations: z.array(evaluationSchema.omit({ criteria: true })),
  startedAt: z.string(),
  endedAt: z.string().optional(),
});
export type GoalJson = z.infer<typeof goalJsonSchema>;
