// The gate (SPEC §21): when the agent ends a turn while its goal is pursuing, the host runs every
// verify step itself, builds the evidence pack and has the grader judge each criterion; the goal
// is `achieved` only when every step exits as expected and every criterion is satisfied. Between
// turns it watches for stalls. It is handed the place (the thread's own command path) and the
// grader call; it changes the goal record it is given and says what the run does next.

import { canonicalJson } from '../text/canonical-json';
import { fence, inlineCode, oneLine } from '../text/markdown-code';
import { allStepsPass, claimsSuccess, gatherEvidence, tail, type GoalPlace } from './evidence';
import { endGoal, type Criterion, type EvidencePack, type Goal, type GoalEvaluation, type GoalState } from './goal';
import { GRADER_SYSTEM, graderPrompt, readVerdict } from './grader';

/** The same failing command (on the same tree) or the same edit this many times: stalled. */
export const STALL_REPEATS = 3;
/** Acting turns in a row that leave the folder's tree as it was: stalled. */
export const STALL_UNCHANGED_TURNS = 5;
const KEPT_REPEAT_KEYS = 200;
const CLAIM_CHARS = 2_000;

export interface GradeRequest {
  system: string;
  prompt: string;
}

export interface GradeAnswer {
  /** The arguments of the grader's `record_verdict` call (undefined: it made none). */
  args: unknown;
  usage: { input: number; output: number };
}

/** One grader call (the host makes it: a separate model call, its own ledger row). */
export type Grade = (request: GradeRequest) => Promise<GradeAnswer>;

export type GateOutcome =
  /** Sent back: the message is the agent's next turn. */
  | { kind: 'revise'; message: string }
  /** The goal ended (achieved, unmet, blocked): the run ends. */
  | { kind: 'end'; state: GoalState; reason: string };

/** A step of the agent as the stall detector sees it. */
export interface ObservedCall {
  name: string;
  args: unknown;
  /** A command's exit code (execute), when it finished. */
  exitCode?: number | null;
  output: string;
}

const WRITES = new Set(['write_file', 'edit_file']);
const ACTS = new Set(['write_file', 'edit_file', 'execute']);

export class GoalGate {
  constructor(
    readonly goal: Goal,
    private readonly place: GoalPlace,
    private readonly grade: Grade,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The agent ended a turn without tool calls: check the goal, from evidence the host gathers. */
  async evaluate(finalText: string): Promise<{ outcome: GateOutcome; evaluation: GoalEvaluation; evidence: EvidencePack }> {
    const { goal } = this;
    const started = performance.now();
    const evidence = await gatherEvidence(goal, this.place, this.now);
    goal.evidence = evidence;
    const stepsPass = allStepsPass(evidence);
    const failing = evidence.steps.filter((s) => !s.passed);
    if (!stepsPass && claimsSuccess(finalText)) {
      goal.contradictedClaims.push({
        at: evidence.at,
        round: goal.rounds,
        claim: finalText.length > CLAIM_CHARS ? `${finalText.slice(0, CLAIM_CHARS)}…` : finalText,
        failingSteps: failing.map((s) => ({ command: s.command, exitCode: s.exitCode, expectedExitCode: s.expectedExitCode })),
      });
    }
    const answer = await this.grade({ system: GRADER_SYSTEM, prompt: graderPrompt(goal, evidence) });
    const read = readVerdict(goal, answer.args);
    const criteria: Criterion[] =
      'problem' in read ? goal.criteria.map((c) => ({ id: c.id, text: c.text, verdict: 'needs_revision' as const, reason: `no verdict: ${read.problem}` })) : read.criteria;
    goal.criteria = criteria;
    const allSatisfied = criteria.every((c) => c.verdict === 'satisfied');
    const verdict: GoalEvaluation['verdict'] = stepsPass && allSatisfied ? 'achieved' : criteria.some((c) => c.verdict === 'failed') ? 'failed' : 'needs_revision';
    const evaluation: GoalEvaluation = {
      round: goal.rounds,
      at: evidence.at,
      verdict,
      criteria,
      durationMs: Math.round(performance.now() - started),
      graderTokens: answer.usage,
    };
    goal.evaluations.push(evaluation);
    const refused = evidence.steps.find((s) => s.refused !== undefined);
    let outcome: GateOutcome;
    if (verdict === 'achieved') {
      outcome = { kind: 'end', state: 'achieved', reason: `every verify step exited as expected and every criterion is satisfied (round ${goal.rounds + 1})` };
    } else if (refused !== undefined) {
      outcome = { kind: 'end', state: 'blocked', reason: `the verify step \`${refused.command}\` could not run: ${refused.refused}` };
    } else if (verdict === 'failed') {
      const failed = criteria.filter((c) => c.verdict === 'failed');
      outcome = { kind: 'end', state: 'unmet', reason: `the grader judged ${failed.map((c) => c.id).join(', ')} failed: ${failed.map((c) => c.reason ?? '').join(' ')}`.trim() };
    } else if (goal.rounds >= goal.maxRounds) {
      outcome = { kind: 'end', state: 'unmet', reason: `not met after ${goal.maxRounds} revision round${goal.maxRounds === 1 ? '' : 's'}: ${summary(evidence, criteria)}` };
    } else {
      goal.rounds++;
      outcome = { kind: 'revise', message: revisionMessage(goal, evidence, criteria) };
    }
    if (outcome.kind === 'end') endGoal(goal, outcome.state as Exclude<GoalState, 'pursuing'>, outcome.reason, this.now());
    return { outcome, evaluation, evidence };
  }

  /** One step of the agent ran: the stall detector's turn. A stall ends the goal (the run stops). */
  async afterStep(calls: readonly ObservedCall[]): Promise<GateOutcome | undefined> {
    const { goal } = this;
    const acted = calls.some((c) => ACTS.has(c.name));
    const tree = acted ? await this.place.tree().catch(() => undefined) : undefined;
    if (acted && tree !== undefined) {
      if (tree === goal.lastTree) goal.unchangedTurns++;
      else {
        goal.unchangedTurns = 0;
        goal.lastTree = tree;
      }
    }
    const repeats = (goal.repeats ??= {});
    for (const call of calls) {
      let key: string | undefined;
      let what = '';
      if (call.name === 'execute' && typeof call.exitCode === 'number' && call.exitCode !== 0) {
        const command = String((call.args as { command?: unknown } | undefined)?.command ?? '');
        key = `run:${command}@${tree ?? tail(call.output, 500)}`;
        what = `the command \`${clip(command)}\` failed ${STALL_REPEATS} times with nothing changed in between`;
      } else if (WRITES.has(call.name)) {
        key = `edit:${call.name}:${canonicalJson(call.args)}`;
        const path = String((call.args as { file_path?: unknown } | undefined)?.file_path ?? '');
        what = `the agent made the same ${call.name === 'edit_file' ? 'edit' : 'write'} to ${path} ${STALL_REPEATS} times`;
      }
      if (key === undefined) continue;
      const count = (repeats[key] ?? 0) + 1;
      delete repeats[key];
      repeats[key] = count;
      // The record keeps the latest keys only (insertion order: the one just counted is last).
      const keys = Object.keys(repeats);
      for (const old of keys.slice(0, Math.max(0, keys.length - KEPT_REPEAT_KEYS))) delete repeats[old];
      if (count >= STALL_REPEATS) return this.stall(what);
    }
    if (goal.unchangedTurns >= STALL_UNCHANGED_TURNS) return this.stall(`${STALL_UNCHANGED_TURNS} turns in a row left the diff as it was`);
    return undefined;
  }

  /** The identical-call guard stopped the run: the goal is stalled. */
  stall(why: string): GateOutcome {
    const reason = `stalled: ${why}`;
    endGoal(this.goal, 'stalled', reason, this.now());
    return { kind: 'end', state: 'stalled', reason };
  }
}

/** At most 200 characters, an ellipsis marking the cut. */
export function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function summary(evidence: EvidencePack, criteria: readonly Criterion[]): string {
  const steps = evidence.steps.filter((s) => !s.passed).map((s) => `${inlineCode(s.command)} exited ${s.exitCode ?? 'without a code'} (expected ${s.expectedExitCode})`);
  const open = criteria.filter((c) => c.verdict !== 'satisfied').map((c) => c.id);
  return [...steps, ...(open.length > 0 ? [`criteria not satisfied: ${open.join(', ')}`] : [])].join('; ') || 'the grader did not satisfy every criterion';
}

/** The agent's next turn after a `needs_revision`: the failing steps (with the host's output) and criteria. */
export function revisionMessage(goal: Goal, evidence: EvidencePack, criteria: readonly Criterion[]): string {
  const lines = [
    `The host checked the goal and it is not met yet (revision ${goal.rounds} of at most ${goal.maxRounds}). Your own statement that it is done is not evidence; these are the host's results.`,
  ];
  const failing = evidence.steps.filter((s) => !s.passed);
  if (failing.length > 0) {
    lines.push('', 'Failing verify steps:');
    for (const step of failing) {
      lines.push(`- ${inlineCode(step.command)} exited ${step.exitCode ?? 'without a code'} (expected ${step.expectedExitCode})${step.refused !== undefined ? `: ${oneLine(step.refused)}` : ''}`, fence(tail(step.outputTail, 2_000), ''));
    }
  }
  const open = criteria.filter((c) => c.verdict !== 'satisfied');
  if (open.length > 0) {
    lines.push('', 'Criteria not yet satisfied:');
    for (const c of open) lines.push(`- ${c.id} (${c.verdict}): ${c.text}${c.reason ? ` — ${c.reason}` : ''}`);
  }
  lines.push('', 'Fix what is failing, then end your turn; the host will run the checks again.');
  return lines.join('\n');
}
