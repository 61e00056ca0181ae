// Whether a provider's refusal means "the account is out of quota, credit or its usage limit"
// (SPEC §26) rather than "slow down": asking again soon gets the same answer, so it is never
// retried and it trips the provider's breaker (quota-breaker.ts). Replies as servers word them:
//   OpenAI      429 {"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your
//               current quota, please check your plan and billing details. …"}}
//   Anthropic   402 billing_error; 400 "Your credit balance is too low to access the Anthropic API…";
//               400/429 "You have reached your specified API usage limits. You will regain access on …";
//               429 rate_limit_error with anthropic-ratelimit-*-reset (RFC 3339) far off
//   OpenRouter  402 "Insufficient credits…"; DeepSeek 402 "Insufficient Balance"
//   Gemini      429 RESOURCE_EXHAUSTED "You exceeded your current quota…" — per minute too, with a RetryInfo
//               retryDelay ("37s") in its details: within a minute that is a rate limit
//   Groq, OpenAI x-ratelimit-reset-requests / -tokens ("6m0s", "1h2m", "20ms") with x-ratelimit-remaining-* at 0

/** Retries are for limits that lift within this; a later reset is a quota. */
export const RATE_LIMIT_RESET_MS = 60_000;

/** Said whatever else the reply says: the account itself is out (never a passing rate limit). */
const OUT_OF_CREDIT = [
  /insufficient_quota/i,
  /billing_error/i,
  /billing_hard_limit/i,
  /credit balance is too low/i,
  /insufficient (credits?|balance|funds|quota)/i,
  /(reached|exceeded|hit) (your |the )?(specified |monthly |daily |weekly )?(api )?(usage|spend(ing)?) limits?/i,
  /out of (credits?|quota)/i,
];
/** Said by a 429 with no reset time, or one beyond a minute: a quota, not a burst. */
const QUOTA_WORDS = /quota|usage limit|billing|credits?\b|spend(ing)? limit/i;

export interface QuotaReply {
  status: number | undefined;
  /** The error's message, body, type and code, as one text to search. */
  text: string;
  headers?: Record<string, string> | undefined;
}

/** `{ resetAt }` (when the reply says when it lifts) if `reply` is a quota answer; undefined for anything else. */
export function quotaAnswer(reply: QuotaReply, now = Date.now()): { resetAt?: number } | undefined {
  const { status, text } = reply;
  if (status !== undefined && (status < 400 || status >= 500)) return undefined;
  const resetIn = resetInMs(reply.headers, text, now);
  const at = resetIn !== undefined ? { resetAt: now + resetIn } : {};
  if (status === 402 || OUT_OF_CREDIT.some((re) => re.test(text))) return at;
  if (status !== 429 && status !== undefined) return undefined;
  if (resetIn !== undefined) return resetIn > RATE_LIMIT_RESET_MS ? at : undefined;
  return QUOTA_WORDS.test(text) ? at : undefined;
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterFromHeaders(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) => {
    for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value.trim();
    return undefined;
  };
  const ms = get('retry-after-ms');
  if (ms !== undefined && ms !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = get('retry-after');
  if (value === undefined || value === '') return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * When the limit lifts, in ms from now: the server's Retry-After; else the latest reset of a
 * limit that is used up (x-ratelimit-reset-*, anthropic-ratelimit-*-reset, their remaining at 0
 * or not said); else Gemini's retryDelay in the body.
 */
export function resetInMs(headers: Record<string, string> | undefined, body = '', now = Date.now()): number | undefined {
  const retryAfter = retryAfterFromHeaders(headers, now);
  if (retryAfter !== undefined) return retryAfter;
  const lower = new Map(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v.trim()]));
  let latest: number | undefined;
  for (const [name, value] of lower) {
    if (!/ratelimit/.test(name) || !/(^|-)reset(-|$)/.test(name)) continue;
    const remaining = lower.get(name.replace(/(^|-)reset(-|$)/, '$1remaining$2'));
    if (remaining !== undefined && Number(remaining) > 0) continue;
    const ms = resetValueMs(value, now);
    if (ms !== undefined) latest = Math.max(latest ?? 0, ms);
  }
  if (latest !== undefined) return latest;
  // Gemini's RetryInfo ("retryDelay": "37s"), or the message's own words ("Please try again in 7m12s", "Please retry in 37.6s").
  const delay = /"retryDelay"\s*:\s*"([\d.]+s)"/.exec(body) ?? /(?:try again|retry) in ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)\b/i.exec(body);
  return delay ? durationMs(delay[1]!) : undefined;
}

/** "6m0s", "1.5s", "20ms", "1h2m" in ms; undefined for anything else. */
function durationMs(value: string): number | undefined {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0));
}

/** A reset header's value in ms from now: a duration ("6m0s", "1.5s", "20ms"), seconds, an epoch (s or ms) or a date. */
function resetValueMs(value: string, now: number): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    if (n > 1e12) return Math.max(0, n - now);
    if (n > 1e9) return Math.max(0, n * 1000 - now);
    return n * 1000;
  }
  const duration = durationMs(value);
  if (duration !== undefined) return duration;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
