// Human approval (SPEC §4): every tool call is checked against the ordered permission
// rules; `ask` pauses the call until the person approves, edits, rejects or responds.
// The broker owns persistence, so a pending approval survives a restart.

import { decideCall, PLAN_MODE_REFUSAL, type ApprovalMode } from '../permissions/modes';
import type { PermissionRule } from '../permissions/rules';
import { errorText, text, type ToolOutput } from '../../tools/tool';
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
  /** The folder's approval mode, read on every call (default `ask`). */
  mode?: () => ApprovalMode;
  /** Whether commands run in an OS sandbox (default: no). */
  sandboxAvailable?: () => boolean;
}

export function approvalMiddleware(options: ApprovalOptions): Middleware {
  return {
    name: 'approval',
    async wrapToolCall(ctx, info, next): Promise<ToolOutput> {
      const { call } = info;
      if (call.parseError !== undefined) return next(call);
      const args = (call.args ?? {}) as Record<string, unknown>;
      const verdict = decideCall(
        { tool: call.name, args },
        { mode: options.mode?.() ?? 'ask', rules: options.rules(), sandboxAvailable: options.sandboxAvailable?.() ?? false },
      );
      if (verdict.decision === 'allow') return next(call);
      if (verdict.decision === 'refuse') return errorText(PLAN_MODE_REFUSAL);
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
        ...(verdict.outsideSandbox ? { outsideSandbox: verdict.outsideSandbox } : {}),
        ...(ctx.parentToolCallId ? { parentToolCallId: ctx.parentToolCallId } : {}),
      };
      const decision = await options.broker.decide(request, ctx.signal);
      switch (decision.type) {
        case 'approve':
          ctx.emit({ type: 'approval', ...base, status: 'approved' });
          return next(call);
        case 'edit':
          ctx.emit({ type: 'approval', ...base, args: decision.args, status: 'edited' });
          return next({ ...call, args: decision.args, argsText: JSON.stringify(decision.args) });
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
