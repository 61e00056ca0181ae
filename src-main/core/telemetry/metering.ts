// THE metering point (SPEC §17, §22): every model call — the agent's steps and summaries, a
// goal's grader and drafting, another agent's through the metering proxy — is one observed
// call, started here before it goes (its budget hold taken), told the provider's usage, and
// ended once: done, failed or cut short. Its observers — the usage ledger (the call's one
// row), OpenTelemetry, LangSmith — hear it through observer.ts; nothing else writes a model
// call down. A call the provider began answering is billed: cut short before its usage was
// reported (a stream the client closed, an answer that could not be read), it keeps its hold,
// counted at its estimate.

import { ZERO_USAGE, type Usage } from '../models/types';
import type { ModelCallInfo, ModelCallOutcome, RunObserver } from './observer';

/** A call's place in a budget, from before it goes until it ends (core/agent/budget.ts's BudgetHold). */
export interface CallHold {
  spend(usage: Usage, costUsd: number | undefined): void;
  release(): void;
  /** Cut short after the provider began answering: its estimate is spent as its cost (returned; undefined when unpriced). */
  keep(): number | undefined;
}

export interface MeteredModelCall {
  /** The provider began answering: from here the call is billed, whatever becomes of it. */
  answered(): void;
  /** The provider's usage of the whole call, and its cost when priced. */
  usage(usage: Usage, costUsd: number | undefined): void;
  /** Once: done, or failed (`error`); without a usage after it answered, cut short. */
  end(outcome?: Omit<ModelCallOutcome, 'usage' | 'costUsd' | 'durationMs'>): void;
}

export function meterModelCall(run: Pick<RunObserver, 'modelCall'>, info: ModelCallInfo, hold?: CallHold): MeteredModelCall {
  const observed = run.modelCall(info);
  const started = performance.now();
  let answered = false;
  let reported: { usage: Usage; costUsd: number | undefined } | undefined;
  let ended = false;
  return {
    answered: () => void (answered = true),
    usage(usage, costUsd) {
      reported ??= { usage, costUsd };
      hold?.spend(usage, costUsd);
    },
    end(outcome = {}) {
      if (ended) return;
      ended = true;
      let { error } = outcome;
      let costUsd = reported?.costUsd;
      if (reported === undefined && answered) {
        costUsd = hold?.keep();
        error = `${error ?? 'cut short'} before the provider reported its usage: counted at its estimate`;
      } else if (reported === undefined) {
        hold?.release();
        error ??= 'the call ended before the provider reported its usage';
      }
      const durationMs = performance.now() - started;
      observed.end({ ...outcome, usage: reported?.usage ?? ZERO_USAGE, ...(costUsd !== undefined ? { costUsd } : {}), durationMs, ...(error !== undefined ? { error } : {}) });
    },
  };
}
