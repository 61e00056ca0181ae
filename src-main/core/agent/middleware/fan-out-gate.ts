// Which of one turn's `task` calls start (SPEC §26): never more than the thread's spawn cap has
// room for — the first ones start, the rest are `not started (spawn cap)` — and a turn that would
// start more than 15 asks once first, through the decision point's asking (a rule of the person's
// or `auto` mode may allow it); refused, none of that turn's subagents start.

import type { ToolCall } from '../../models/types';
import { askAndTell, tellRuled, type AskedCall, type Telling } from '../asking';
import { DEFAULT_MAX_SPAWNS, LARGE_FAN_OUT, type FanOutLimits } from '../fan-out';
import { isDefaultRule } from '../permissions/modes';
import { evaluatePermission } from '../permissions/rules';
import { answererFor, answeringOf } from '../review/answerer';
import { rootRun, type RunContext } from '../run-context';
import type { ApprovalOptions } from './approval';

/** Whether a task call may start its subagent, or why it does not. */
export type Admission = { start: true } | { start: false; why: string };

export interface FanOutGateOptions {
  limits: (ctx: RunContext) => FanOutLimits;
  /** Who answers a large fan-out, and the rules and mode that may allow it unasked (the approval middleware's). */
  approval?: Pick<ApprovalOptions, 'rules' | 'broker' | 'mode' | 'review'>;
  /** What starting these subagents may cost, in words (`about $0.04 for their first model calls`). */
  estimate: (ctx: RunContext, calls: readonly ToolCall[]) => string;
}

/** Decides each turn's task calls once (the first of them to arrive asks for all), then answers each call from that. */
export function fanOutGate(options: FanOutGateOptions): (ctx: RunContext, call: ToolCall, turnCalls: readonly ToolCall[]) => Promise<Admission> {
  const plans = new WeakMap<readonly ToolCall[], Promise<Map<string, Admission>>>();
  return async (ctx, call, turnCalls) => {
    let plan = plans.get(turnCalls);
    if (plan === undefined) {
      plan = planTurn(ctx, turnCalls, options);
      plans.set(turnCalls, plan);
    }
    return (await plan).get(call.id) ?? { start: true };
  };
}

/** The subagent of this task call has started (its run is kept with the thread, by the call's id). */
export function hasStarted(ctx: RunContext, callId: string): boolean {
  return ctx.state.subagentRuns?.[callId] !== undefined;
}

async function planTurn(ctx: RunContext, turnCalls: readonly ToolCall[], options: FanOutGateOptions): Promise<Map<string, Admission>> {
  // A subagent that already started (resumed after a restart) is neither counted again nor asked about.
  const asked = turnCalls.filter((c) => c.name === 'task' && !hasStarted(ctx, c.id));
  const maxSpawns = options.limits(ctx).maxSpawns ?? DEFAULT_MAX_SPAWNS;
  const spawned = Object.keys(ctx.state.subagentRuns ?? {}).length;
  const room = Math.max(0, maxSpawns - spawned);
  const starting = asked.slice(0, room);
  const plan = new Map<string, Admission>();
  const capped = `not started (spawn cap): this thread may start ${maxSpawns} subagents in all, ${spawned} had started and this turn asked for ${asked.length}, so only the first ${room} started. Do not start more; the person can raise the cap (budgets.thread.maxSpawns).`;
  for (const c of asked.slice(room)) plan.set(c.id, { start: false, why: capped });
  const refused = starting.length > LARGE_FAN_OUT ? await askLarge(ctx, starting, asked.length - starting.length, options) : undefined;
  for (const c of starting) plan.set(c.id, refused === undefined ? { start: true } : { start: false, why: refused });
  return plan;
}

/** Asks once about starting `calls` at once; why none starts, or undefined when they may. */
async function askLarge(ctx: RunContext, calls: readonly ToolCall[], capped: number, options: FanOutGateOptions): Promise<string | undefined> {
  const count = calls.length;
  const cost = options.estimate(ctx, calls);
  const summary = capped === 0 ? `Start ${count} subagents (${cost})` : `Start ${count + capped} subagents: the first ${count} (${cost}); ${capped} are over the thread's spawn cap and will not start`;
  const first = calls[0]!;
  const args = { description: summary, subagents: count };
  // Told in the thread's events; the first call's span keeps its own decision (the approval middleware's).
  const tell: Telling = { emit: (event) => ctx.emit(event) };
  const approval = options.approval;
  const asking: AskedCall = { id: first.id, name: 'task', args, reason: summary };
  // A rule of the person's naming `task` decides; else `auto` mode allows; else the person is asked.
  const ruled = approval === undefined ? undefined : evaluatePermission({ tool: 'task', args }, approval.rules().filter((r) => !isDefaultRule(r)));
  const mode = approval?.mode?.() ?? 'ask';
  if (ruled?.why.kind === 'rule' && ruled.decision === 'deny') {
    tellRuled(tell, { ...asking, reason: ruled.reason, why: ruled.why }, 'denied');
    return `not started: starting ${count} subagents in one turn is not allowed (${ruled.reason}).`;
  }
  const allowed = ruled?.why.kind === 'rule' ? ruled.decision === 'allow' : mode === 'auto';
  if (approval === undefined || allowed) return undefined;
  const question = { threadId: rootRun(ctx).threadId, toolCallId: first.id, toolName: 'task', args, reason: summary };
  const answerer = answererFor(answeringOf(ctx), approval.broker, approval.review?.(), { mode, rules: approval.rules() });
  // An edit cannot change how many start: it refuses (askAndTell's `edits` false).
  const { decision, decidedBy } = await askAndTell(question, asking, answerer, ctx.signal, tell, false);
  if (decision.type === 'approve') return undefined;
  const said = decision.type === 'reject' || decision.type === 'respond' ? (decision.message?.trim() ?? '') : '';
  const who = decidedBy === 'reviewer' ? 'the reviewer' : 'the person';
  return `not started: ${who} refused to start ${count} subagents in one turn, so none of this turn's subagents started.${said !== '' ? ` They said: ${said}` : ''}`;
}

