// Human approval (SPEC §4): every tool call is checked against the ordered permission
// rules; `ask` pauses the call until the person approves, edits, rejects or responds.
// The broker owns persistence, so a pending approval survives a restart.

import { evaluatePermission, type PermissionRule } from '../permissions/rules';
import { errorText, isErrorOutput, text, type ToolOutput } from '../../tools/tool';
import { canonicalJson } from '../canonical-json';
import type { Middleware } from '../middleware';
import type { ApprovalDecision, ApprovalRequest } from '../types';

export interface ApprovalBroker {
  /** Resolves with the person's decision; rejects if the signal aborts. */
  decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

export interface ApprovalOptions {
  /** Read on every call, so rule changes (e.g. "always allow") apply at once. */
  rules: () => readonly PermissionRule[];
  broker: ApprovalBroker;
}

export function approvalMiddleware(options: ApprovalOptions): Middleware {
  return {
    name: 'approval',
    async wrapToolCall(ctx, info, next): Promise<ToolOutput> {
      const { call } = info;
      if (call.parseError !== undefined) return next(call);
      const args = (call.args ?? {}) as Record<string, unknown>;
      const verdict = evaluatePermission({ tool: call.name, args }, options.rules());
      if (verdict.decision === 'allow') return next(call);
      const base = { id: call.id, name: call.name, args, reason: verdict.reason } as const;
      if (verdict.decision === 'deny') {
        ctx.emit({ type: 'approval', ...base, status: 'denied' });
        return errorText(`this ${call.name} call is not allowed: ${verdict.reason}. Do not retry it; find another way or ask the person.`);
      }
      ctx.emit({ type: 'approval', ...base, status: 'pending' });
      const request: ApprovalRequest = {
        threadId: ctx.threadId,
        toolCallId: call.id,
        toolName: call.name,
        args,
        reason: verdict.reason,
        ...(ctx.parentToolCallId ? { parentToolCallId: ctx.parentToolCallId } : {}),
      };
      const decision = await options.broker.decide(request, ctx.signal);
      switch (decision.type) {
        case 'approve':
          ctx.emit({ type: 'approval', ...base, status: 'approved' });
          return next(call);
        case 'edit': {
          if (canonicalJson(decision.args) === canonicalJson(args)) {
            ctx.emit({ type: 'approval', ...base, status: 'approved' });
            return next(call);
          }
          ctx.emit({ type: 'approval', ...base, args: decision.args, status: 'edited' });
          // The history will show the edited call (the loop rewrites it); the result says so too.
          const output = await next({ ...call, args: decision.args, argsText: JSON.stringify(decision.args) });
          return { ...output, text: `${editNote(args, decision.args)}\n${output.text}`, isError: isErrorOutput(output) };
        }
        case 'reject': {
          ctx.emit({ type: 'approval', ...base, status: 'rejected' });
          const said = decision.message?.trim() ? ` They said: ${decision.message.trim()}` : '';
          return errorText(`the person rejected this ${call.name} call; it was not run.${said}`);
        }
        case 'respond':
          ctx.emit({ type: 'approval', ...base, status: 'responded' });
          return text(`The person did not run this ${call.name} call and answered instead:\n${decision.message}`);
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
