// The reviewer (SPEC §23): one model call that answers what would ask the person, failing
// closed. Each try has its own timeout; a transient failure (the timeout, 429, 5xx) is tried
// once more; an error, a second failure or an answer that does not parse is no answer, and the
// person is asked. It never allows by default. The call is the one it is given (metered as the
// thread's: its ledger row of purpose `reviewer`, its budget).

import { ModelError } from '../../models/errors';
import type { ModelEvent, ModelRequest, ToolCall } from '../../models/types';
import type { ReviewAnswer, Reviewer } from '../decision';
import type { ApprovalRequest, ReviewVerdict } from '../types';
import { REVIEW_SYSTEM, reviewPrompt, type ReviewInput } from './review-input';
import { REVIEW_TOOL, REVIEW_TOOL_SPEC, reviewOutcome } from './review-outcome';

export const DEFAULT_REVIEW_TIMEOUT_SECONDS = 30;

export interface ReviewerOptions {
  /** One model call (metered by the giver). */
  call(request: ModelRequest): AsyncIterable<ModelEvent>;
  timeoutSeconds?: number;
  /** What the reviewer is shown of the run besides the question. */
  input(question: ApprovalRequest): Omit<ReviewInput, 'question'>;
}

/** One try: a verdict, or why there is none (the same cause twice is said once). */
type Try = { verdict: ReviewVerdict } | { because: string; transient: boolean };

export function createReviewer(options: ReviewerOptions): Reviewer {
  const timeoutMs = (options.timeoutSeconds ?? DEFAULT_REVIEW_TIMEOUT_SECONDS) * 1000;
  return {
    async review(question, signal) {
      const request = { system: REVIEW_SYSTEM, messages: [{ role: 'user' as const, content: reviewPrompt({ ...options.input(question), question }) }], tools: [REVIEW_TOOL_SPEC] };
      let tried = await oneTry(options, request, timeoutMs, signal);
      if ('because' in tried && tried.transient && !signal.aborted) {
        const first = tried.because;
        const again = await oneTry(options, request, timeoutMs, signal);
        tried = 'verdict' in again ? again : { because: again.because === first ? `${first}, twice` : `${first}; tried again: ${again.because}`, transient: false };
      }
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('stopped');
      return 'verdict' in tried ? { answered: true, verdict: tried.verdict } : { answered: false, because: `the reviewer could not answer: ${tried.because}` };
    },
  };
}

async function oneTry(options: ReviewerOptions, request: Omit<ModelRequest, 'signal'>, timeoutMs: number, signal: AbortSignal): Promise<Try> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let text = '';
  const calls: ToolCall[] = [];
  try {
    for await (const event of options.call({ ...request, signal: AbortSignal.any([signal, timeout]) })) {
      if (event.type === 'text-delta') text += event.text;
      else if (event.type === 'tool-call') calls.push(event.call);
    }
  } catch (err) {
    if (timeout.aborted && !signal.aborted) return failed(`it did not answer within ${timeoutMs / 1000} s`, true);
    const status = err instanceof ModelError ? err.status : undefined;
    return failed(`its model call failed: ${err instanceof Error ? err.message : String(err)}`, status === 429 || (status !== undefined && status >= 500));
  }
  const verdict = reviewOutcome(calls.find((c) => c.name === REVIEW_TOOL)?.args ?? jsonIn(text));
  return verdict !== null ? { verdict } : failed(`its answer was not a ${REVIEW_TOOL} it could be read as`, false);
}

function failed(because: string, transient: boolean): Try {
  return { because, transient };
}

/** A JSON answer given as text (a structured output of that name), else undefined. */
function jsonIn(text: string): unknown {
  const body = text.trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Settings' *Test* (SPEC §23): one review of a harmless, fixed action (listing the folder the person asked to see). */
export function testReview(call: ReviewerOptions['call'], timeoutSeconds: number | undefined): Promise<ReviewAnswer> {
  const question: ApprovalRequest = { threadId: 'test', toolCallId: 'test', toolName: 'execute', args: { command: 'ls -la' }, reason: 'a test of the reviewer' };
  const reviewer = createReviewer({ call, ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}), input: () => ({ personWords: 'List the files in this folder.', mode: 'ask', rules: [] }) });
  return reviewer.review(question, new AbortController().signal);
}
