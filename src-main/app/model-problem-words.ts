// A model problem (core's plain words, e.g. "Can't reach the model server at 127.0.0.1:1234.
// Is it running?") with the way to its fix in the window's words: where to check what.

import type { ModelProblem, ModelProblemCheck } from '../core/models/connection-problem';
import type { AgentEvent } from '../core/agent/types';

/** Where the person is told to look: the run's error says Settings; Test connection, in Settings, says above. */
export type FixPlace = 'Settings' | 'above';

const WHAT: Record<ModelProblemCheck, string> = {
  address: 'the address',
  'api-key': 'the API key',
  model: 'the model and the address',
};

/** The problem, then what to check and where ("Check the address in Settings."). */
export function problemForWindow(problem: ModelProblem, where: FixPlace): string {
  if (problem.check === undefined) return problem.summary;
  return `${problem.summary} Check ${WHAT[problem.check]} ${where === 'Settings' ? 'in Settings' : 'above'}.`;
}

/**
 * A run's error event as the window shows it: a model problem in plain words with the way to
 * its fix (`settings`), the technical message kept as `detail`. Other events pass unchanged.
 */
export function errorEventForWindow(event: AgentEvent): AgentEvent {
  if (event.type !== 'error') return event;
  // Budgets and prices are set in Settings: the stop offers the way there.
  if (event.budget === true) return { ...event, settings: true };
  if (event.problem === undefined) return event;
  return { ...event, message: problemForWindow(event.problem, 'Settings'), detail: event.message, ...(event.problem.check !== undefined ? { settings: true } : {}) };
}
