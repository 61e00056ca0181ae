// Goals (SPEC §21) as the window and the clients see them: the goal object (`state`, criteria,
// the evidence pack, `contradictedClaims`) and the names of its states, from core's one schema.

export { GOAL_STATES, goalJsonSchema, goalDraftSchema, type GoalJson as GoalJsonDto, type GoalState, type GoalDraft } from '../../core/goals/goal';
export { goalCheckOf } from '../../core/goals/goal-check';
