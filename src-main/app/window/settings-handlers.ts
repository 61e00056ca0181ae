// Settings and the approval mode, as the window changes them (SPEC §6, §7, §12).

import { collectResponse } from '../../core/models/collect';
import { modelProblem } from '../../core/models/connection-problem';
import { AbortedError, ModelConfigError } from '../../core/models/errors';
import { listModels } from '../../core/models/list-models';
import type { RetryPolicy } from '../../core/models/retry';
import type { ChatModel } from '../../core/models/types';
import { ContractError } from '../contract';
import { detectLocalServers } from '../settings/local-servers';
import { isSandboxKeyVariable, reviewerFor } from '../settings/settings-service';
import { modelProblemForWindow, problemForWindow, providerLabel } from '../base/model-problem-words';
import { testReview } from '../../core/agent/review/reviewer';
import type { HandlersFor, WindowServices } from './handlers';

export function settingsHandlers(w: WindowServices): HandlersFor<'settings.'> & HandlersFor<'mode.'> {
  const { settings, models } = w.session;
  const { env, overrides, modes } = w;
  const { forWindow, withoutFlagValues } = overrides;
  return {
    'settings.get': async () => forWindow(await settings.get()),
    'settings.update': async (patch) => {
      const saving = withoutFlagValues(patch);
      const saved = await settings.update(saving);
      // Review turned (back) on for this folder: a thread whose breaker tripped is reviewed again (SPEC §23).
      if (saving.reviewer != null && reviewerFor(saved.reviewer, w.folder) !== undefined) w.threads.reviewTurnedOn();
      return forWindow(saved);
    },
    'settings.setApiKey': async ({ provider, key }) => forWindow(await settings.setApiKey(provider, key)),
    'settings.setSandboxKey': async ({ variable, value }) => {
      if (!isSandboxKeyVariable(variable)) throw new ContractError(`${variable} is not a sandbox provider's key.`, 'bad_request');
      return forWindow(await settings.setSandboxKey(variable, value));
    },
    'settings.testConnection': async ({ model, baseUrl, apiKey }) =>
      testConnection(model, (retry) => models.named(model, { ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}), retry })),
    'settings.testReviewer': async ({ model, timeoutSeconds }) => {
      const saved = reviewerFor(settings.raw().reviewer, w.folder);
      const spec = (model ?? saved?.model ?? '').trim() || models.spec();
      if (spec === '') return { ok: false, message: 'No model is set: choose the reviewer’s model, or the folder’s model in Settings.' };
      const seconds = timeoutSeconds ?? saved?.timeoutSeconds;
      try {
        const reviewer = await models.named(spec, { retry: { maxRetries: 0 } });
        const answer = await testReview((request) => reviewer.stream(request), seconds);
        return answer.answered ? { ok: true, verdict: answer.verdict } : { ok: false, message: answer.because };
      } catch (err) {
        return { ok: false, message: err instanceof ModelConfigError ? modelProblemForWindow(err, 'above') : err instanceof Error ? err.message : String(err) };
      }
    },
    'settings.detectLocalServers': () => detectLocalServers(),
    'settings.listModels': async ({ provider, baseUrl, apiKey }) => {
      const key = apiKey ?? overrides.flags.apiKey ?? (await settings.apiKeyFor(provider));
      try {
        return { models: await listModels({ provider, env, ...(baseUrl ? { baseUrl } : {}), ...(key ? { apiKey: key } : {}) }) };
      } catch (err) {
        // Nothing to list with yet: what to do, not a failure.
        if (err instanceof ModelConfigError && err.missing === 'api-key') throw new ContractError(`Add an API key for ${providerLabel(provider)} to list its models.`, 'needs_settings');
        if (err instanceof ModelConfigError && err.missing === 'base-url') throw new ContractError('Enter the server’s base URL to list its models.', 'needs_settings');
        throw new ContractError(err instanceof Error ? err.message : String(err), 'failed');
      }
    },

    'mode.get': async () => modes.get(),
    'mode.set': async ({ mode }) => modes.set(mode),
    'mode.sandboxNoticeShown': async () => modes.sandboxNoticeShown(),
    'mode.offer': async ({ event }) => modes.offer(event),
  };
}

/** A test answers at once when asking again cannot help (nothing listens, no such host, a refused key). */
const TEST_RETRY: RetryPolicy = { retryIf: (error) => modelProblem(error)?.lasting !== true };
const TEST_TIMEOUT_MS = 30_000;

async function testConnection(spec: string, make: (retry: RetryPolicy) => Promise<ChatModel>): Promise<{ ok: boolean; message: string; detail?: string }> {
  const timeout = AbortSignal.timeout(TEST_TIMEOUT_MS);
  try {
    const model = await make(TEST_RETRY);
    const started = Date.now();
    const response = await collectResponse(
      model.stream({ system: 'You are a connection test.', messages: [{ role: 'user', content: 'Reply with the single word OK.' }], tools: [], maxOutputTokens: 16, signal: timeout }),
    );
    return { ok: true, message: `Connected to ${model.id} in ${Date.now() - started} ms: "${response.text.trim().slice(0, 60)}"` };
  } catch (err) {
    if (err instanceof ModelConfigError) return { ok: false, message: modelProblemForWindow(err, 'above') };
    const detail = err instanceof Error ? err.message : String(err);
    if (err instanceof AbortedError && timeout.aborted) {
      return { ok: false, message: `The model server did not answer within ${TEST_TIMEOUT_MS / 1000} s. Is it running and reachable? Check the address above.`, detail };
    }
    const problem = modelProblem(err, spec);
    return problem ? { ok: false, message: problemForWindow(problem, 'above'), detail } : { ok: false, message: detail };
  }
}
