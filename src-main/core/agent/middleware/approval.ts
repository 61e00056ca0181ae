// Human approval (SPEC §4): every tool call is decided at the one decision point
// (decision.ts); what asks pauses the call until the person approves, edits, rejects or
// responds. Here: the approval events, what each answer makes of the call, and the target
// guard around the tool (a link made after the check is decided again when it is touched).
// The broker owns persistence, so a pending approval survives a restart.

import { askAndTell, tellRuled, type AskedCall, type Telling } from '../asking';
import { decide, linkTargets, reviewLayerWrites, type ApprovalBroker } from '../decision';
import { PLAN_MODE_REFUSAL, type ApprovalMode } from '../permissions/modes';
import type { PermissionRule } from '../permissions/rules';
import { withTargetGuard } from '../../backends/target-guard';
import { errorText, isErrorOutput, text, type ToolOutput } from '../../tools/tool';
import { canonicalJson } from '../../text/canonical-json';
import type { Middleware } from '../middleware';
import { handOn, rootRun, taskPath } from '../run-context';
import { hookPermission } from '../../extensions/hooks/call-permission';
import { answererFor, answeringOf, type ReviewSetup } from '../review/answerer';

export type { ApprovalBroker } from '../decision';

export interface ApprovalOptions {
  /** Read on every call, so rule changes (e.g. "always allow") apply at once. */
  rules: () => readonly PermissionRule[];
  broker: ApprovalBroker;
  /** The folder's approval mode, read on every call (default `ask`). */
  mode?: () => ApprovalMode;
  /** Whether commands run in an OS sandbox (default: no). */
  sandboxAvailable?: () => boolean;
  /** Whether an MCP tool is annotated read-only by its server (plan mode runs only those). */
  readOnlyTool?: (name: string) => boolean;
  /** The reviewer the run's settings name (SPEC §23), read on every call; absent or undefined: the person answers. */
  review?: () => ReviewSetup | undefined;
  /** Other agents' configuration in a folder (their vendors'): a write there is sensitive. */
  agentConfig?: readonly string[];
}

export function approvalMiddleware(options: ApprovalOptions): Middleware {
  return {
    name: 'approval',
    async wrapToolCall(ctx, info, next): Promise<ToolOutput> {
      const { call } = info;
      if (call.parseError !== undefined) return next(call);
      const args = (call.args ?? {}) as Record<string, unknown>;
      const hook = hookPermission(call);
      const review = options.review?.();
      const path = taskPath(ctx);
      const asked = { ...(ctx.parentToolCallId ? { parentToolCallId: ctx.parentToolCallId } : {}), ...(path.length > 0 ? { callPath: path } : {}) };
      const context = {
        // A subagent's question belongs to the thread the person sees.
        threadId: rootRun(ctx).threadId,
        mode: options.mode?.() ?? 'ask',
        rules: options.rules(),
        sandboxAvailable: options.sandboxAvailable?.() ?? false,
        backend: ctx.backend,
        ...(options.readOnlyTool ? { readOnlyTool: options.readOnlyTool } : {}),
        ...(options.agentConfig ? { agentConfig: options.agentConfig } : {}),
      };
      const answerer = answererFor(answeringOf(ctx), options.broker, review, context);
      // What must be gated comes from the run's review setup, never from who answers (SPEC §23: a tripped breaker changes only who).
      const reviewing = review !== undefined;
      const decided = await decide({ id: call.id, tool: call.name, args, ...(hook ? { hook } : {}) }, { ...context, reviewing });
      const tell: Telling = { emit: (event) => ctx.emit(event), span: ctx.toolObserver?.(call.id) };
      if (decided.decision === 'refuse') {
        tell.span?.decided('refuse', decided.decidedBy);
        return { ...errorText(PLAN_MODE_REFUSAL), rejected: { by: 'mode' }, decided: { by: decided.decidedBy } };
      }
      const asking: AskedCall = { id: call.id, name: call.name, args, reason: decided.reason, why: decided.why };
      if (decided.decision === 'deny') {
        tellRuled(tell, asking, 'denied', decided.decidedBy);
        return { ...errorText(`this ${call.name} call is not allowed: ${decided.reason}. Do not retry it; find another way or ask the person.`), rejected: { by: 'rule' }, decided: { by: decided.decidedBy } };
      }
      // The call's stored record says who let it run (SPEC §23: `threads export` shows it per call).
      const run = async (toRun: typeof call, by: NonNullable<ToolOutput['decided']>): Promise<ToolOutput> => {
        const go = () => withTargetGuard(decided.guard, () => next(toRun));
        if (!reviewing || call.name !== 'execute') return { ...(await go()), decided: by };
        // What the command wrote that later runs or steers a program is asked about before its layer is applied.
        const question = { threadId: rootRun(ctx).threadId, toolCallId: call.id, toolName: call.name, args: (toRun.args ?? {}) as Record<string, unknown>, ...asked };
        return { ...(await handOn(ctx, call.id, { reviewLayer: (writes) => reviewLayerWrites(question, writes, answerer, ctx.signal, options.agentConfig) }, go)), decided: by };
      };
      if (decided.decision === 'allow') {
        tell.span?.decided('allow', decided.decidedBy);
        return run(call, { by: decided.decidedBy });
      }
      const { decision: answer, decidedBy, review: verdict, once } = await askAndTell({ ...decided.question, ...asked }, asking, answerer, ctx.signal, tell);
      const by = { by: decidedBy, ...(verdict !== undefined ? { review: verdict } : {}), ...(once !== undefined ? { once } : {}) };
      if (decidedBy === 'reviewer' && answer.type === 'reject') {
        return { ...errorText(`denied by the reviewer: ${answer.message ?? ''}`), rejected: { by: 'reviewer', ...(answer.message !== undefined ? { message: answer.message } : {}) }, decided: by };
      }
      switch (answer.type) {
        case 'approve':
          return run(call, by);
        case 'edit': {
          // The person wrote these arguments: where they lead now is what they approved.
          decided.guard.approve((await linkTargets(ctx.backend, call.name, answer.args)).inside);
          // The history will show the edited call (the loop rewrites it); the result says so too.
          const output = await run({ ...call, args: answer.args, argsText: JSON.stringify(answer.args) }, by);
          return { ...output, text: `${editNote(args, answer.args)}\n${output.text}`, isError: isErrorOutput(output) };
        }
        case 'reject': {
          const message = answer.message?.trim() ?? '';
          const said = message !== '' ? ` They said: ${message}` : '';
          return { ...errorText(`the person rejected this ${call.name} call; it was not run.${said}`), rejected: { by: 'person', ...(message !== '' ? { message } : {}) }, decided: by };
        }
        case 'respond':
          return { ...text(`The person did not run this ${call.name} call and answered instead:\n${answer.message}`), rejected: { by: 'person', answered: true, message: answer.message }, decided: by };
      }
    },
  };
}

const NOTE_VALUE_CHARS = 300;

/** One line for the model: which arguments the person changed, from what to what. */
export function editNote(proposed: Record<string, unknown>, ran: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(proposed), ...Object.keys(ran)])];
  const changes = keys
    .filter((k) => canonicalJson(proposed[k]) !== canonicalJson(ran[k]))
    .map((k) => (k in ran ? (k in proposed ? `${k} was ${shown(proposed[k])}, it ran with ${shown(ran[k])}` : `${k} added: ${shown(ran[k])}`) : `${k} removed (was ${shown(proposed[k])})`));
  return `Note: the person edited this call before it ran: ${changes.join('; ')}. The result below is of the edited call.`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > NOTE_VALUE_CHARS ? `${text.slice(0, NOTE_VALUE_CHARS)}… (${text.length} characters)` : text;
}
