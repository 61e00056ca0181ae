// THE metering point (SPEC §17, §22): every model call — the agent's steps and summaries, a
// goal's grader and drafting, another agent's through the metering proxy — is one observed call,
// its budget hold taken before, ended once; its observers (observer.ts: the ledger's one row,
// OpenTelemetry, LangSmith) hear it, and nothing else writes a model call down. A call the
// provider began answering is billed (SPEC §26): cut short, it settles at the largest usage the
// stream had reported (its caller reports it), or with none keeps its hold — its worst case.

import { ZERO_USAGE, type Usage } from '../models/types';
import type { ModelCallInfo, ModelCallOutcome, RunObserver } from './observer';

/** A call's place in a budget from before it goes until it ends (core/agent/budget.ts's BudgetHold). */
export interface CallHold {
  spend(usage: Usage, costUsd: number | undefined): void;
  release(): void;
  /** Cut short after the provider began answering, no usage reported: its worst case is spent as its cost (returned; undefined unpriced). */
  keep(): number | undefined;
}

export interface MeteredModelCall {
  /** The provider began answering: from here the call is billed, whatever becomes of it. */
  answered(): void;
  /** The provider's usage of the call (of a call cut short, the largest it had reported), and its cost when priced: heard once, and not after the end (kept by then). */
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
      if (ended || reported !== undefined) return;
      reported = { usage, costUsd };
      hold?.spend(usage, costUsd);
    },
    end(outcome = {}) {
      if (ended) return;
      ended = true;
      let { error } = outcome;
      const kept = reported === undefined && answered ? hold?.keep() : (hold?.release(), undefined);
      if (reported === undefined) error = answered ? `${error ?? 'cut short'} before the provider reported its usage: counted at its worst case` : (error ?? 'the call ended before the provider reported its usage');
      const costUsd = reported?.costUsd ?? kept;
      observed.end({ ...outcome, usage: reported?.usage ?? ZERO_USAGE, ...(costUsd !== undefined ? { costUsd } : {}), durationMs: performance.now() - started, ...(error !== undefined ? { error } : {}) });
    },
  };
}
