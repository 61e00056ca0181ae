// Starting a goal (SPEC §21) the same way from every client: the draft shown in lines, and the
// first message the agent gets when the person gave no other (the objective, the criteria and
// the checks the host will run).

import type { Goal, GoalDraft } from '../../core/goals/goal';

/** The draft as lines for a terminal or an editor. */
export function draftLines(draft: GoalDraft): string[] {
  return [
    'goal draft — criteria:',
    ...draft.criteria.map((c, i) => `  c${i + 1}. ${c}`),
    'goal draft — verify steps (run by the host):',
    ...(draft.verify.length > 0 ? draft.verify.map((s) => `  $ ${s.command}   (success: exit ${s.expectedExitCode})`) : ['  (none)']),
  ];
}

/** The agent's first message of a goal. */
export function goalPrompt(goal: Goal): string {
  return [
    `Goal: ${goal.objective}`,
    '',
    'Criteria:',
    ...goal.criteria.map((c) => `- ${c.text}`),
    '',
    'When you end your turn, the host runs these checks itself and grants the goal only if they pass:',
    ...(goal.verify.length > 0 ? goal.verify.map((s) => `- \`${s.command}\` (exit code ${s.expectedExitCode})`) : ['- (none: a grader judges the criteria from the diff)']),
  ].join('\n');
}
