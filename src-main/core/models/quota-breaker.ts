// SPEC §26 "A quota error stops the fan-out": once a provider answers that the account is out
// of quota, credit or its usage limit (a QuotaError), its breaker is tripped for the whole
// process — every thread, subagent, candidate and other agent of the workspace — so no new
// model call goes to it: the metering point (agent/model-call.ts) asks `quotaTripped` before
// each call and throws the trip's QuotaError instead of sending a request.
//
// Keyed by provider and endpoint (base URL): another provider, or the same provider at another
// address (another account), is unaffected. A breaker resets
//   - by itself once the reset time the provider gave has passed (Retry-After,
//     x-ratelimit-reset-*, anthropic-ratelimit-*-reset, Gemini's retryDelay);
//   - when the person tries again: their next message to a thread (agent/loop.ts resets the
//     breaker of the run's model when a thread's own run starts on a new message), or
//     `resetQuota()` from whoever raises a limit.

import { QuotaError } from './errors';
import type { ChatModel } from './types';

type Provided = Pick<ChatModel, 'provider' | 'endpoint' | 'id'>;

export interface QuotaTrip {
  provider: ChatModel['provider'];
  endpoint: string | undefined;
  /** What the provider said, as one line ('HTTP 429: You exceeded your current quota, …'). */
  said: string;
  status: number | undefined;
  /** When the provider said the quota lifts (epoch ms), if it did. */
  resetAt: number | undefined;
}

const TRIPPED = new Map<string, QuotaTrip>();

function keyOf(model: Pick<ChatModel, 'provider' | 'endpoint'>): string {
  return `${model.provider} ${model.endpoint ?? ''}`;
}

/** Trips `model`'s provider on `error` (the first answer stands while it is tripped). */
export function tripQuota(model: Provided, error: QuotaError, now = Date.now()): QuotaTrip {
  const current = quotaTripped(model, now);
  if (current !== undefined) return current;
  // The model's id prefixes the message (retry.ts): the provider's words are what follows.
  const said = error.message.startsWith(`${model.id}: `) ? error.message.slice(model.id.length + 2) : error.message;
  const trip: QuotaTrip = { provider: model.provider, endpoint: model.endpoint, said, status: error.status, resetAt: error.resetAt };
  TRIPPED.set(keyOf(model), trip);
  return trip;
}

/** The trip that refuses calls on `model`'s provider now; undefined when calls may go. */
export function quotaTripped(model: Pick<ChatModel, 'provider' | 'endpoint'>, now = Date.now()): QuotaTrip | undefined {
  const key = keyOf(model);
  const trip = TRIPPED.get(key);
  if (trip?.resetAt !== undefined && trip.resetAt <= now) {
    TRIPPED.delete(key);
    return undefined;
  }
  return trip;
}

/** Lets calls go again: to `model`'s provider, or (no model) to every provider. */
export function resetQuota(model?: Pick<ChatModel, 'provider' | 'endpoint'>): void {
  if (model === undefined) TRIPPED.clear();
  else TRIPPED.delete(keyOf(model));
}

/** One line naming the provider, what it said and when calls go again. */
export function quotaLine(trip: QuotaTrip): string {
  const where = trip.endpoint !== undefined ? `${trip.provider} (${trip.endpoint})` : trip.provider;
  const until = trip.resetAt !== undefined ? `it resets at ${new Date(trip.resetAt).toISOString()} or you send a message` : 'you send a message';
  return `quota: ${where} is out of quota or credit — it said "${trip.said}"; no new model call goes to it until ${until}`;
}

/** The error of a call refused (or ended) by the trip: its message is the trip's line. */
export function quotaError(trip: QuotaTrip): QuotaError {
  return new QuotaError(quotaLine(trip), { provider: trip.provider, status: trip.status, resetAt: trip.resetAt });
}
