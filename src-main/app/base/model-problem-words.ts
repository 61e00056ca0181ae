// A model problem (core's plain words, e.g. "Can't reach the model server at 127.0.0.1:1234.
// Is it running?") with the way to its fix in the window's words: where to check what.

import type { ModelProblem, ModelProblemCheck } from '../../core/models/connection-problem';
import type { AgentEvent } from '../../core/agent/types';
import type { ModelConfigError } from '../../core/models/errors';
import type { ProviderName } from '../../core/models/types';

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
  // A quota stop's own line names the provider and what it said (SPEC §26): kept as it is.
  if (event.problem === undefined || event.problem.kind === 'quota') return event;
  return { ...event, message: problemForWindow(event.problem, 'Settings'), detail: event.message, ...(event.problem.check !== undefined ? { settings: true } : {}) };
}

const PROVIDER_LABELS: Record<ProviderName, string> = { anthropic: 'Anthropic', openai: 'OpenAI', google: 'Google', 'openai-compatible': 'the OpenAI-compatible server', ollama: 'Ollama' };

export function providerLabel(provider: ProviderName): string {
  return PROVIDER_LABELS[provider];
}

/**
 * Bad model settings in the window's words: core's messages name the command line's
 * variables and flags (right for `deepdesk run`), the window says where it takes them.
 */
export function modelProblemForWindow(err: ModelConfigError, where: 'Settings' | 'above'): string {
  const provider = err.provider ?? 'openai-compatible';
  if (err.missing === 'api-key') return where === 'Settings' ? `No API key for ${providerLabel(provider)}: add one in Settings.` : `No API key for ${providerLabel(provider)}: enter one above.`;
  if (err.missing === 'base-url') {
    const example = 'e.g. http://127.0.0.1:1234/v1 for LM Studio or http://127.0.0.1:8080/v1 for llama.cpp';
    return where === 'Settings' ? `The OpenAI-compatible provider needs the server’s base URL: enter it in Settings (${example}).` : `Enter the server’s base URL above (${example}).`;
  }
  return where === 'Settings' ? `${err.message}. Check Settings.` : err.message;
}
