// Drafting a goal (SPEC §21): from the objective and the folder, a model call with read-only
// tools proposes criteria and verify steps (the tests and build it finds) through one call of
// `propose_goal`; the person accepts or edits the draft before the goal starts.

import { goalDraftSchema, type GoalDraft } from './goal';

export const DRAFT_TOOL = 'propose_goal';

export const DRAFT_TOOL_SPEC = {
  name: DRAFT_TOOL,
  description: 'Propose the goal: the criteria that say it is done, and the commands the host will run to check it. Call it exactly once.',
  parameters: {
    type: 'object',
    properties: {
      criteria: { type: 'array', items: { type: 'string' }, description: 'short, checkable statements of what must hold when the objective is done' },
      verify: {
        type: 'array',
        description: "shell commands run in the folder's root that check the work (the project's tests, its build, a type check), with the exit code that means success",
        items: {
          type: 'object',
          properties: { command: { type: 'string' }, expectedExitCode: { type: 'integer', default: 0 } },
          required: ['command'],
        },
      },
    },
    required: ['criteria', 'verify'],
  },
} as const;

export const DRAFT_SYSTEM = [
  'You draft a goal for a coding agent: from the objective and the project folder, propose criteria and verify steps.',
  "Look for how the project checks itself with the read-only tools (package.json scripts, a Makefile, pytest, cargo, go test, a CI file) and use those commands.",
  'Verify commands run in the folder root, change nothing, and finish in minutes. Criteria are short and checkable from the verify output and the diff.',
  `Call ${DRAFT_TOOL} once with your proposal.`,
].join('\n');

export function draftPrompt(objective: string): string {
  return `# Objective\n${objective}\n\nDraft the goal's criteria and verify steps for this folder.`;
}

/** The drafting model's proposal, checked; a proposal without criteria takes the objective as its one criterion. */
export function readDraft(objective: string, args: unknown): GoalDraft | { problem: string } {
  const raw = (args ?? {}) as { criteria?: unknown; verify?: unknown };
  const criteria = Array.isArray(raw.criteria) ? raw.criteria.filter((c): c is string => typeof c === 'string' && c.trim() !== '') : [];
  const verify = Array.isArray(raw.verify)
    ? raw.verify.flatMap((v: unknown) => {
        const step = v as { command?: unknown; expectedExitCode?: unknown };
        if (typeof step?.command !== 'string' || step.command.trim() === '') return [];
        const code = typeof step.expectedExitCode === 'number' && Number.isInteger(step.expectedExitCode) ? step.expectedExitCode : 0;
        return [{ command: step.command.trim(), expectedExitCode: code }];
      })
    : [];
  const parsed = goalDraftSchema.safeParse({ objective, criteria: criteria.length > 0 ? criteria : [objective], verify });
  return parsed.success ? parsed.data : { problem: parsed.error.issues[0]?.message ?? 'the proposal did not match its schema' };
}

/** A goal given on the command line (`run --goal TEXT --verify CMD…`): the steps as given, the objective its one criterion. */
export function givenDraft(objective: string, verify: readonly string[]): GoalDraft {
  return goalDraftSchema.parse({ objective, criteria: [objective], verify: verify.map((command) => ({ command, expectedExitCode: 0 })) });
}
