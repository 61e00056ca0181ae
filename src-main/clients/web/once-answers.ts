// Exactly once across a lost connection: the window sends each call with a key (`once`) and,
// when the connection drops before the answer came, sends it again on the next connection with
// `replay`. A key seen before gets the first call's answer (awaited if it is still running),
// never a second run of it: a message sent just as the connection dropped is sent once, and
// its sender learns how it went.

import { ContractError, type ResponseFrame } from '../../app/contract';
import { canonicalJson } from '../../core/text/canonical-json';
import { errorFrame, frameId } from './handle-frame';

/** How long an answer is kept for a replay; a window reconnects within seconds. */
const KEEP_MS = 5 * 60_000;
const MAX_KEYS = 1000;
/** Bigger answers (a file read for the viewer) are not kept: a replay is asked to call again. */
const MAX_KEPT_CHARS = 256 * 1024;

/** `call`: the method and parameters the key was first sent with (a key answers only a replay of that call). */
type Kept = { at: number; call: string; answer: Promise<ResponseFrame | 'too-large'> };

export interface OnceAnswers {
  /** The answer to `frame`: `run()`'s, or the first one's for a key seen before. */
  answer(frame: unknown, run: () => Promise<ResponseFrame>): Promise<ResponseFrame>;
  /** The answer to `frame` was sent as `chars` characters: a big one is not kept. */
  sent(frame: unknown, chars: number): void;
}

export function createOnceAnswers(now: () => number = Date.now): OnceAnswers {
  const kept = new Map<string, Kept>();

  const forget = (): void => {
    const oldest = now() - KEEP_MS;
    for (const [key, entry] of kept) {
      if (entry.at >= oldest && kept.size <= MAX_KEYS) break;
      kept.delete(key);
    }
  };

  return {
    async answer(frame, run) {
      const key = onceKey(frame);
      if (key === undefined) return run();
      const id = frameId(frame);
      const method = methodOf(frame);
      const seen = kept.get(key);
      const call = canonicalJson([method, (frame as { params?: unknown }).params ?? null]);
      // Another tab's key on another call: neither run nor answered with the first call's answer.
      if (seen !== undefined && seen.call !== call) return errorFrame(id, new ContractError(`the key of this ${method} call was already used for another call; nothing was done`, 'bad_request'));
      if (seen !== undefined) {
        const first = await seen.answer;
        if (first === 'too-large') return errorFrame(id, new ContractError(`the answer to ${method} was lost with the connection; ask again`, 'failed'));
        return { ...first, id };
      }
      if (isReplay(frame)) {
        // Sent on a connection this host never answered (it was restarted, or the key is long
        // forgotten): whether it was done is not known here, so it is not done again.
        return errorFrame(id, new ContractError(`the connection to Deepdesk was lost before ${method} was answered; it may or may not have been done`, 'failed'));
      }
      forget();
      const answer = run();
      kept.set(key, { at: now(), call, answer });
      return answer;
    },
    sent(frame, chars) {
      const key = onceKey(frame);
      const entry = key === undefined ? undefined : kept.get(key);
      if (entry !== undefined && chars > MAX_KEPT_CHARS) entry.answer = Promise.resolve('too-large');
    },
  };
}

function onceKey(frame: unknown): string | undefined {
  if (typeof frame !== 'object' || frame === null) return undefined;
  const key = (frame as { once?: unknown }).once;
  return typeof key === 'string' && key.length > 0 && key.length <= 128 ? key : undefined;
}

function isReplay(frame: unknown): boolean {
  return (frame as { replay?: unknown }).replay === true;
}

function methodOf(frame: unknown): string {
  const method = (frame as { method?: unknown }).method;
  return typeof method === 'string' ? method.slice(0, 80) : 'the call';
}
