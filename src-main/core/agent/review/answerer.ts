// Who answers a run's questions (SPEC §23), built in one place from the run: the person, or the
// reviewer the run's settings name (its model and timeout) in front of them while the thread's
// breaker holds; either way, a call the person allowed once runs. The reviewer's call is the thread's (the metering point, purpose `reviewer`,
// the run's budget and totals), each review a `review` span under the call's, and each outcome
// counted on the thread's breaker, which is kept with the thread.

import { randomUUID } from 'node:crypto';
import type { ChatModel } from '../../models/types';
import type { Answerer, ApprovalBroker, DecisionContext, Reviewer } from '../decision';
import { meteredStream, recordUsage } from '../model-call';
import { isPersonMessage } from '../notes';
import { rootRun, type RunContext } from '../run-context';
import type { ApprovalRequest } from '../types';
import { takeAllowedOnce } from './allow-once';
import { afterReview, trippedNotice } from './breakers';
import { createReviewer } from './reviewer';

/** The reviewer a run's settings name: its model (with no retries of its own; one that cannot be made fails the review) and each try's timeout. */
export interface ReviewSetup {
  model: () => Promise<ChatModel>;
  timeoutSeconds?: number;
}

/** The Answerer of one call of the run: the reviewer while the thread's breaker holds, else the person. */
export function runAnswerer(ctx: RunContext, broker: ApprovalBroker, setup: ReviewSetup | undefined, decided: Pick<DecisionContext, 'mode' | 'rules'>): Answerer {
  const root = rootRun(ctx);
  const allowedOnce = async (question: ApprovalRequest): Promise<boolean> => takeAllowedOnce(root.state, question) && (await root.persist().then(() => true));
  if (setup === undefined || root.state.reviewBreaker?.tripped !== undefined) return { kind: 'person', broker, allowedOnce };
  const reviewer = createReviewer({
    ...(setup.timeoutSeconds !== undefined ? { timeoutSeconds: setup.timeoutSeconds } : {}),
    async *call(request) {
      // The call's own context: the reviewer's model; the run's tally, budget and observer.
      const callCtx: RunContext = { ...ctx, model: await setup.model(), parent: ctx };
      yield* meteredStream(callCtx, request, {
        purpose: 'reviewer',
        promptTokens: () => ctx.countRequestTokens({ system: request.system, messages: request.messages, tools: request.tools }),
        onUsage: (usage, cost) => recordUsage(root, usage, cost),
      });
    },
    input: () => ({ ...personWords(root), mode: decided.mode, rules: decided.rules, history: root.state.messages, ...(root.state.goal !== undefined ? { goal: root.state.goal } : {}) }),
  });
  return { kind: 'reviewer', broker, reviewer: counted(ctx, reviewer), allowedOnce };
}

/** The reviewer with its outcomes counted on the thread's breaker (and a span each); a trip is told. */
function counted(ctx: RunContext, reviewer: Reviewer): Reviewer {
  const root = rootRun(ctx);
  return {
    async review(question, signal) {
      const span = ctx.toolObserver?.(question.toolCallId)?.review?.();
      const answer = await reviewer.review(question, signal).catch((err: unknown) => {
        span?.end({ error: err instanceof Error ? err.message : String(err) });
        throw err;
      });
      span?.end(answer.answered ? { decision: answer.verdict.decision, risk: answer.verdict.risk, category: answer.verdict.category } : { error: answer.because });
      const was = root.state.reviewBreaker;
      root.state.reviewBreaker = afterReview(was, answer.answered ? answer.verdict.decision : 'failed');
      const tripped = root.state.reviewBreaker.tripped;
      if (tripped !== undefined && was?.tripped === undefined) root.emit({ type: 'note', id: `reviewer-${randomUUID()}`, kind: 'reviewer', text: trippedNotice(tripped) });
      await root.persist();
      return answer;
    },
  };
}

/** The person's own words in the thread, as they sent them (text parts only). */
function personWords(root: RunContext): { personWords?: string } {
  const words = root.state.messages
    .filter(isPersonMessage)
    .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('')))
    .filter((text) => text.trim() !== '');
  return words.length > 0 ? { personWords: words.join('\n\n---\n\n') } : {};
}
