// Approvals through the editor (SPEC §14): every call that would ask in the session's mode
// becomes a `session/request_permission` with allow once, allow always (when the window
// would offer an "Always allow" rule: the same rule is saved) and reject. The editor's
// answer is the person's; a cancelled or failed request rejects the call (fail closed).
// What the request shows is what runs: the whole command (or the call's arguments), never
// cut, with whatever would hide part of it escaped (core/text/shown-text.ts).

import type { PermissionOption, RequestPermissionResponse, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ApprovalBroker } from '../../../core/agent/middleware/approval';
import { suggestAllowRule } from '../../../core/agent/permissions/suggest';
import type { PermissionRule } from '../../../core/agent/permissions/rules';
import type { ApprovalDecision, ApprovalRequest } from '../../../core/agent/types';
import { shownCodeBlock, shownText } from '../../../core/text/shown-text';
import { acpToolCallId, toolCallShown } from './session-updates';
import type { EditorPaths } from '../../../core/backends/mounts/real-paths';

export const ALLOW_ONCE = 'allow_once';
export const ALLOW_ALWAYS = 'allow_always';
export const REJECT_ONCE = 'reject_once';

export interface PermissionBridgeOptions {
  sessionId: string;
  /** Where the session's paths live on disk, for the call's locations and diff. */
  paths: EditorPaths;
  /** Sends session/request_permission to the editor; aborting the signal withdraws it. */
  ask(params: { sessionId: string; toolCall: ToolCallUpdate; options: PermissionOption[] }, signal: AbortSignal): Promise<RequestPermissionResponse>;
  /** Saves an "Always allow" rule where the window's go (the person's settings). */
  addRule(rule: PermissionRule): Promise<void>;
  /** Where a failure to ask is told (stderr). */
  log(line: string): void;
  /** Where the session's commands run when not on this machine (`Runs in Daytona · sandbox ID`), said on every execute approval. */
  runsIn?: () => string | undefined;
}

export function permissionBridge(options: PermissionBridgeOptions): ApprovalBroker {
  return {
    async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
      const rule = suggestAllowRule({ tool: request.toolName, args: request.args });
      const choices: PermissionOption[] = [
        { optionId: ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' },
        ...(rule !== undefined ? [{ optionId: ALLOW_ALWAYS, name: rule.description ?? 'Always allow', kind: 'allow_always' as const }] : []),
        { optionId: REJECT_ONCE, name: 'Reject', kind: 'reject_once' },
      ];
      const id = acpToolCallId(request.toolCallId, request.parentToolCallId);
      const why = [request.reason, request.resolvedTarget, request.outsideSandbox ? `outside the sandbox: ${request.outsideSandbox.reason}` : undefined].filter(Boolean).join(' — ');
      const shown = toolCallShown(options.paths, id, request.toolName, request.args, 'pending');
      const runsIn = request.toolName === 'execute' ? options.runsIn?.() : undefined;
      const where = runsIn !== undefined ? `${shownText(runsIn, { singleLine: true })}\n\n` : '';
      const text = `Needs approval: ${shownText(why)}\n\n${where}${callText(request.toolName, request.args)}`;
      const toolCall: ToolCallUpdate = { ...shown, content: [...shown.content, { type: 'content', content: { type: 'text', text } }] };
      let response: RequestPermissionResponse;
      try {
        response = await options.ask({ sessionId: options.sessionId, toolCall, options: choices }, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        options.log(`could not ask the editor for approval: ${err instanceof Error ? err.message : String(err)}`);
        return { type: 'reject', message: 'The editor could not be asked for approval, so this call did not run.' };
      }
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
      const outcome = response.outcome;
      if (outcome.outcome === 'cancelled') return { type: 'reject', message: 'The person cancelled.' };
      if (outcome.optionId === ALLOW_ONCE) return { type: 'approve' };
      if (outcome.optionId === ALLOW_ALWAYS && rule !== undefined) {
        await options.addRule(rule);
        return { type: 'approve' };
      }
      return { type: 'reject' };
    },
  };
}

/** The call as it will run: an execute's whole command, any other call's arguments. */
function callText(toolName: string, args: Record<string, unknown>): string {
  if (toolName === 'execute' && typeof args.command === 'string') return `Command:\n${shownCodeBlock(args.command)}`;
  return `Arguments:\n${shownCodeBlock(JSON.stringify(args, null, 2) ?? '{}')}`;
}
