// Who answers a run's questions (SPEC §23), built in one place from the run: the person, or the
// reviewer the run's settings name (its model and timeout) in front of them while the thread's
// breaker holds; either way, a call the person allowed once runs. The reviewer's call is the thread's (the metering point, purpose `reviewer`,
// the run's budget and totals), each review a `review` span under the call's, and each outcome
// counted on the thread's breaker, which is kept with the thread.

import { randomUUID } from 'node:crypto';
import type { ChatModel } from '../../models/types';
import type { ToolCallObserver } from '../../telemetry/observer';
import type { Answerer, ApprovalBroker, DecisionContext, Reviewer } from '../decision';
import { meteredStream, recordUsage, type MeteredRun } from '../model-call';
import { isPersonMessage } from '../notes';
import { countRequestTokens } from '../token-count';
import { rootRun, type RunContext } from '../run-context';
import type { AgentEventBody, ApprovalRequest, ThreadState } from '../types';
import { takeAllowedOnce } from './allow-once';
import { afterReview, trippedNotice } from './breakers';
import { createReviewer } from './reviewer';

/** The reviewer a run's settings name: its model (with no retries of its own; one that cannot be made fails the review) and each try's timeout. */
export interface ReviewSetup {
  model: () => Promise<ChatModel>;
  timeoutSeconds?: number;
}

/**
 * What answering a thread's questions needs of it — never a whole run: the thread (its breaker,
 * its allowances, what the reviewer is shown), saving it and telling it, where the reviewer's
 * calls are metered (the run's observer, budget and tally), and the span of the call asked about.
 */
export interface AnsweringContext {
  readonly state: ThreadState;
  persist(): Promise<void>;
  emit(event: AgentEventBody): void;
  readonly meter: Omit<MeteredRun, 'model' | 'countRequestTokens'>;
  /** The window of the thread's model: the usage event of a review says it. */
  contextWindow(): number;
  span?(callId: string): ToolCallObserver | undefined;
}

/** A Deepdesk run's answering context: its thread's (a subagent's questions are the thread's), its calls metered as the run's. */
export function answeringOf(ctx: RunContext): AnsweringContext {
  const root = rootRun(ctx);
  return {
    state: root.state,
    persist: () => root.persist(),
    emit: (event) => root.emit(event),
    meter: { observer: ctx.observer, ...(ctx.budget ? { budget: ctx.budget } : {}), parent: ctx },
    contextWindow: () => root.model.contextWindow,
    ...(ctx.toolObserver ? { span: ctx.toolObserver } : {}),
  };
}

/** Who answers one question of the thread: the reviewer while the thread's breaker holds, else the person. */
export function answererFor(answering: AnsweringContext, broker: ApprovalBroker, setup: ReviewSetup | undefined, decided: Pick<DecisionContext, 'mode' | 'rules'>): Answerer {
  const { state } = answering;
  const allowedOnce = async (question: ApprovalRequest): Promise<string | undefined> => {
    const denied = takeAllowedOnce(state, question);
    if (denied !== undefined) await answering.persist();
    return denied;
  };
  if (setup === undefined || state.reviewBreaker?.tripped !== undefined) return { kind: 'person', broker, allowedOnce };
  const reviewer = createReviewer({
    ...(setup.timeoutSeconds !== undefined ? { timeoutSeconds: setup.timeoutSeconds } : {}),
    async *call(request) {
      // The call's own: the reviewer's model; the thread's tally, budget and observer.
      const model = await setup.model();
      yield* meteredStream({ ...answering.meter, model, countRequestTokens: (r) => countRequestTokens(r, model) }, request, {
        purpose: 'reviewer',
        promptTokens: () => countRequestTokens({ system: request.system, messages: request.messages, tools: request.tools }, model),
        onUsage: (usage, cost) => recordUsage({ state, emit: answering.emit, model: { contextWindow: answering.contextWindow() } }, usage, cost),
      });
    },
    input: () => ({ ...personWords(state), mode: decided.mode, rules: decided.rules, history: state.messages, ...(state.goal !== undefined ? { goal: state.goal } : {}) }),
  });
  return { kind: 'reviewer', broker, reviewer: counted(answering, reviewer), allowedOnce };
}

/** The reviewer with its outcomes counted on the thread's breaker (and a span each); a trip is told. */
function counted(answering: AnsweringContext, reviewer: Reviewer): Reviewer {
  const { state } = answering;
  return {
    async review(question, signal) {
      const span = answering.span?.(question.toolCallId)?.review?.();
      const answer = await reviewer.review(question, signal).catch((err: unknown) => {
        span?.end({ error: err instanceof Error ? err.message : String(err) });
        throw err;
      });
      span?.end(answer.answered ? { decision: answer.verdict.decision, risk: answer.verdict.risk, category: answer.verdict.category } : { error: answer.because });
      const was = state.reviewBreaker;
      state.reviewBreaker = afterReview(was, answer.answered ? answer.verdict.decision : 'failed');
      const tripped = state.reviewBreaker.tripped;
      if (tripped !== undefined && was?.tripped === undefined) answering.emit({ type: 'note', id: `reviewer-${randomUUID()}`, kind: 'reviewer', text: trippedNotice(tripped) });
      await answering.persist();
      return answer;
    },
  };
}

/** The person's own words in the thread, as they sent them (text parts only). */
function personWords(state: ThreadState): { personWords?: string } {
  const words = state.messages
    .filter(isPersonMessage)
    .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('')))
    .filter((text) => text.trim() !== '');
  return words.length > 0 ? { personWords: words.join('\n\n---\n\n') } : {};
}
