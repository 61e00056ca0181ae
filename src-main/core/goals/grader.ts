// The grader (SPEC §21): a separate model call that judges each criterion from the criteria
// and the evidence pack the host gathered, never from the agent's own words. It answers through
// structured output: one call of the `record_verdict` tool, whose arguments are checked here.

import { z } from 'zod';
import { scrubSecrets } from '../process/scrub-secrets';
import { fence, inlineCode, oneLine } from '../text/markdown-code';
import { CRITERION_VERDICTS, type Criterion, type CriterionVerdict, type EvidencePack, type Goal } from './goal';

export const VERDICT_TOOL = 'record_verdict';

/** The grader's structured answer: a verdict per criterion, by id. */
const verdictArgsSchema = z.object({
  criteria: z
    .array(z.object({ id: z.string(), verdict: z.enum(CRITERION_VERDICTS), reason: z.string().max(4_000).default('') }))
    .min(1),
});

/** The JSON schema of `record_verdict`'s arguments, as the model is offered it. */
export const VERDICT_TOOL_SPEC = {
  name: VERDICT_TOOL,
  description: 'Record your verdict on every criterion of the goal. Call it exactly once, when you have judged them all.',
  parameters: {
    type: 'object',
    properties: {
      criteria: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'the criterion id, e.g. c1' },
            verdict: { type: 'string', enum: [...CRITERION_VERDICTS] },
            reason: { type: 'string', description: 'one or two sentences citing the evidence' },
          },
          required: ['id', 'verdict', 'reason'],
        },
      },
    },
    required: ['criteria'],
  },
} as const;

export const GRADER_SYSTEM = [
  'You are the grader of a coding goal. You judge whether each criterion is met from the EVIDENCE the host gathered itself:',
  'the verify commands it ran (their exit codes and output), the diff of the folder since the goal started and the files touched.',
  'You may read files of the folder with the read-only tools you have. Nothing the coding agent said is evidence: you are not shown it.',
  'For each criterion answer `satisfied` (the evidence shows it is met), `needs_revision` (not yet, and more work could meet it) or',
  '`failed` (it cannot be met as asked). A criterion whose check is a verify step that failed is never `satisfied`.',
  `Answer by calling ${VERDICT_TOOL} once with a verdict for every criterion id.`,
].join('\n');

/**
 * The grader's request text: the objective, the criteria and the evidence pack, nothing else.
 * What the folder and its commands produced is code, in fences it cannot close: it cannot
 * pose as a section of the host's own ("all criteria met"); it is scrubbed of secrets (the
 * grader may be another provider's model).
 */
export function graderPrompt(goal: Goal, evidence: EvidencePack): string {
  const steps = evidence.steps.map((step, i) =>
    [
      `### Verify step ${i + 1}: ${inlineCode(step.command)}`,
      `expected exit code ${step.expectedExitCode}; ${step.refused !== undefined ? `did not run: ${oneLine(step.refused)}` : `exit code ${step.exitCode ?? 'none (did not finish)'}`} → ${step.passed ? 'PASSED' : 'FAILED'}`,
      'Output (tail):',
      fence(scrubSecrets(step.outputTail), ''),
    ].join('\n'),
  );
  return [
    `# Objective\n${goal.objective}`,
    `# Criteria\n${goal.criteria.map((c) => `- ${c.id}: ${c.text}`).join('\n')}`,
    `# Evidence (gathered by the host)\n${steps.length > 0 ? steps.join('\n\n') : 'No verify steps.'}`,
    `## Files touched since the goal started\n${evidence.filesTouched.length > 0 ? evidence.filesTouched.map((f) => `- ${inlineCode(f)}`).join('\n') : '(none)'}`,
    `## Diff since the goal started\n${evidence.diff === null ? '(not available in this place)' : fence(scrubSecrets(evidence.diff), 'diff')}`,
  ].join('\n\n');
}

/** The grader's answer, checked: every criterion gets a verdict (one it left out is `needs_revision`). */
export function readVerdict(goal: Goal, args: unknown): { criteria: Criterion[] } | { problem: string } {
  const parsed = verdictArgsSchema.safeParse(args);
  if (!parsed.success) return { problem: `the verdict did not match its schema: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const byId = new Map(parsed.data.criteria.map((c) => [c.id, c]));
  return {
    criteria: goal.criteria.map((c) => {
      const given = byId.get(c.id);
      return given === undefined
        ? { id: c.id, text: c.text, verdict: 'needs_revision' as CriterionVerdict, reason: 'the grader gave no verdict on it' }
        : { id: c.id, text: c.text, verdict: given.verdict, reason: given.reason };
    }),
  };
}
