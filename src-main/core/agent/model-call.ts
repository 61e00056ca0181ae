// Every model call of a run goes through here — the agent's steps and the summaries — so
// that each holds its worst case in the budget before it is made (its prompt and the most it
// may answer: the request's maxOutputTokens, else the model's, model-info.ts), and is counted
// once after it ends: its usage and cost added to the thread's totals, and reported through the
// metering point (core/telemetry/metering.ts) to whoever observes the run (the usage ledger, traces).
//
// A call's prompt is estimated from what the provider reported for the run's previous call
// (its input and output tokens: that prompt and the reply now in the history) plus what was
// added since, counted: a provider counts more tokens than our tokenizer does (its chat
// template, its own tokenizer), and a prompt counted by ours alone let a run cross its budget.

import type { MemoryUse } from '../memories/memory-types';
import { QuotaError } from '../models/errors';
import { costAt, maxOutputTokensFor, modelPrice } from '../models/model-info';
import { quotaError, quotaTripped, tripQuota } from '../models/quota-breaker';
import type { ChatMessage, ModelEvent, ModelRequest, Usage } from '../models/types';
import type { ModelCallPurpose } from '../telemetry/observer';
import { meterModelCall, type CallHold } from '../telemetry/metering';
import { rootRun, type RunContext } from './run-context';
import type { UsageTotals } from './types';

export interface MeteredCall {
  purpose: ModelCallPurpose;
  /** Estimated prompt tokens (for the budget); computed only when a budget is set. */
  promptTokens: () => number;
  /** Called once with what the provider reported and the cost, when the call finished. */
  onUsage?: (usage: Usage, costUsd: number | undefined) => void;
  /** The memories the request carries (SPEC §25 "Used in"). */
  memories?: MemoryUse[];
}

/** What a metered call needs of its run: the model, the observer and budget, and (through `parent`) the run whose tally it adds to. */
export type MeteredRun = Pick<RunContext, 'model' | 'observer' | 'budget' | 'countRequestTokens'> & Partial<Pick<RunContext, 'emit'>> & { readonly parent?: RunContext };

/**
 * Streams one model call through the metering point: the budget held first, the call measured
 * and reported when it ends. A provider out of quota (SPEC §26) is asked nothing: its tripped
 * breaker refuses the call with a QuotaError, and a quota answer trips it.
 */
export async function* meteredStream(ctx: MeteredRun, request: ModelRequest, call: MeteredCall): AsyncGenerator<ModelEvent> {
  const tripped = quotaTripped(ctx.model);
  if (tripped !== undefined) throw quotaStop(ctx, quotaError(tripped));
  // Its worst case held from before the call until it ends, so calls made at once cannot together cross a budget.
  const counted = ctx.budget?.active ? call.promptTokens() : undefined;
  const maxOutputTokens = request.maxOutputTokens ?? maxOutputTokensFor(ctx.model.id);
  // Over a cap the call waits, paused, until the cap is raised or the run is stopped (core/spend/spend-tree.ts).
  const held = await ctx.budget?.hold(ctx.model, counted !== undefined ? promptEstimate(ctx, request.messages, counted) : 0, maxOutputTokens, {
    ...(request.signal ? { signal: request.signal } : {}),
    onPause: (pause) => ctx.emit?.({ type: 'paused', ...pause }),
  });
  // Without a budget nothing was held, but a call cut short with no usage still counts at its worst case (counted then).
  const worst = (): number | undefined =>
    costAt(modelPrice(ctx.model), { inputTokens: promptEstimate(ctx, request.messages, call.promptTokens()), outputTokens: maxOutputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });
  const hold: CallHold = counted !== undefined && held !== undefined ? held : { spend: (usage, costUsd) => held?.spend(usage, costUsd), release: () => held?.release(), keep: () => (held?.keep(), worst()) };
  const metered = meterModelCall(ctx.observer, { purpose: call.purpose, provider: ctx.model.provider, model: modelName(ctx.model.id), system: request.system, messages: request.messages, tools: request.tools, ...(call.memories !== undefined ? { memories: call.memories } : {}) }, hold);
  let text = '';
  let stopReason: Extract<ModelEvent, { type: 'finish' }>['stopReason'] | undefined;
  const toolCalls: Array<{ id: string; name: string; args: unknown }> = [];
  let error: string | undefined;
  try {
    for await (const event of ctx.model.stream(request)) {
      metered.answered();
      if (event.type === 'text-delta') text += event.text;
      else if (event.type === 'tool-call') toolCalls.push({ id: event.call.id, name: event.call.name, args: event.call.args });
      else if (event.type === 'finish') {
        const { usage } = event;
        stopReason = event.stopReason;
        const costUsd = costAt(modelPrice(ctx.model), usage);
        metered.usage(usage, costUsd);
        if (counted !== undefined && call.purpose === 'agent') REPORTED.set(ctx, { lastMessage: request.messages.at(-1), counted, usage });
        TALLIES.get(ctx.parent ? rootRun(ctx.parent) : ctx)?.add(usage, costUsd);
        call.onUsage?.(usage, costUsd);
      }
      yield event;
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
    throw err instanceof QuotaError ? quotaStop(ctx, quotaError(tripQuota(ctx.model, err))) : err;
  } finally {
    metered.end({ ...(stopReason !== undefined ? { stopReason } : {}), ...(error !== undefined ? { error } : {}), text, toolCalls });
  }
}

/** A run's latest agent call: where its prompt ended, how many tokens we counted in it, and what the provider reported. */
interface ReportedCall {
  lastMessage: ChatMessage | undefined;
  counted: number;
  usage: Usage;
}

const REPORTED = new WeakMap<MeteredRun, ReportedCall>();

/**
 * The prompt tokens of the call about to be made on `messages` (`counted` by our tokenizer):
 * the previous call's input and output tokens as the provider reported them, plus what came
 * after its reply, counted and scaled as the provider counted that prompt against our count.
 * Never less than our own count; our count alone (so scaled) when the history was rewritten
 * since (a summary) or the call is no step of the agent.
 */
function promptEstimate(ctx: MeteredRun, messages: readonly ChatMessage[], counted: number): number {
  const last = REPORTED.get(ctx);
  if (last === undefined || last.usage.inputTokens <= 0) return counted;
  const ratio = last.counted > 0 ? Math.max(1, last.usage.inputTokens / last.counted) : 1;
  const at = last.lastMessage === undefined ? -1 : messages.lastIndexOf(last.lastMessage);
  if (at < 0 || messages[at + 1]?.role !== 'assistant') return Math.ceil(counted * ratio);
  const added = ctx.countRequestTokens({ system: '', messages: messages.slice(at + 2), tools: [] });
  return Math.max(counted, last.usage.inputTokens + last.usage.outputTokens + Math.ceil(added * ratio));
}

/** The model's name without its provider ('anthropic:claude-sonnet-4-5' → 'claude-sonnet-4-5'). */
export function modelName(id: string): string {
  const colon = id.indexOf(':');
  return colon < 0 ? id : id.slice(colon + 1);
}

/** Adds one call's usage to the thread's totals and tells the window (summaries' calls too: `contextTokens` unchanged). */
export function recordUsage(ctx: Pick<RunContext, 'state' | 'emit'> & { model: Pick<RunContext['model'], 'contextWindow'> }, usage: Usage, cost: number | undefined, contextTokens?: number): void {
  const total = ctx.state.usage;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.cacheReadTokens += usage.cacheReadTokens;
  total.cacheWriteTokens += usage.cacheWriteTokens;
  if (cost !== undefined) total.costUsd = (total.costUsd ?? 0) + cost;
  // Kept with the thread, so a reopened thread shows how full its context was.
  if (contextTokens !== undefined) ctx.state.contextTokens = usage.inputTokens > 0 ? usage.inputTokens : contextTokens;
  ctx.emit({
    type: 'usage',
    usage: { ...usage, ...(cost !== undefined ? { costUsd: cost } : {}) },
    total: { ...total },
    contextTokens: ctx.state.contextTokens ?? 0,
    contextWindow: ctx.model.contextWindow,
  });
}

/** What one run of a thread's own agent used: every call under it, subagents' and summaries' included. */
class RunTally {
  private readonly total = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  private cost = 0;
  private calls = 0;
  private unpriced = 0;

  add(usage: Usage, costUsd: number | undefined): void {
    this.total.inputTokens += usage.inputTokens;
    this.total.outputTokens += usage.outputTokens;
    this.total.cacheReadTokens += usage.cacheReadTokens;
    this.total.cacheWriteTokens += usage.cacheWriteTokens;
    this.calls++;
    if (costUsd === undefined) this.unpriced++;
    else this.cost += costUsd;
  }

  /** The cost only when every call's price was known. */
  usage(): UsageTotals {
    return { ...this.total, ...(this.calls > 0 && this.unpriced === 0 ? { costUsd: this.cost } : {}) };
  }
}

const TALLIES = new WeakMap<object, RunTally>();

/** The quota stops under each run of a thread's own agent (its subagents' included): such a run never ends `completed`. */
const QUOTA_STOPS = new WeakMap<object, QuotaError>();

function quotaStop(ctx: MeteredRun, error: QuotaError): QuotaError {
  const root = ctx.parent ? rootRun(ctx.parent) : ctx;
  if (!QUOTA_STOPS.has(root)) QUOTA_STOPS.set(root, error);
  return error;
}

/** The first quota stop under this run (the thread's own agent's), if a call of it or of its subagents met one. */
export function quotaStopUnder(ctx: RunContext): QuotaError | undefined {
  return QUOTA_STOPS.get(ctx);
}

/** Starts counting what a run of the thread's own agent uses (subagents count into it). */
export function startRunTally(ctx: RunContext): void {
  TALLIES.set(ctx, new RunTally());
}

/** What the run used so far; undefined for a subagent's run (its parent's tally has it). */
export function runTally(ctx: RunContext): UsageTotals | undefined {
  return TALLIES.get(ctx)?.usage();
}
