// Deep Agents' human-in-the-loop over the Agent Protocol (SPEC §19): the approvals a host run
// waits on as langchain's humanInTheLoopMiddleware interrupt value, and a run's
// `command.resume` decisions back into the host's approval answers.

import type { ApprovalDecision, ApprovalRequest } from '../../../core/agent/types';
import type { PendingQuestion } from '../runs';
import type { ProtocolInterrupt } from './context';
import { ProtocolHttpError } from './http';

const ALLOWED_DECISIONS = ['approve', 'edit', 'reject'] as const;

/** The approvals a host run waits on as one human-in-the-loop interrupt (langchain's humanInTheLoopMiddleware value). */
export function interruptOf(asking: readonly PendingQuestion[]): ProtocolInterrupt {
  return {
    id: asking[0]!.key,
    value: {
      actionRequests: asking.map(({ request }) => ({ name: request.toolName, args: request.args, description: descriptionOf(request) })),
      reviewConfigs: asking.map(({ request }) => ({ actionName: request.toolName, allowedDecisions: [...ALLOWED_DECISIONS] })),
    },
  };
}

function descriptionOf(request: ApprovalRequest): string {
  return `${request.reason}\n\nTool: ${request.toolName}\nArgs: ${JSON.stringify(request.args, null, 2)}`;
}

/** `command.resume` as the middleware reads it: `{decisions: [...]}`, one per pending question, in order. */
export function decisionsOf(resume: unknown, asking: readonly PendingQuestion[]): ApprovalDecision[] {
  const list = resume !== null && typeof resume === 'object' ? (resume as { decisions?: unknown }).decisions : undefined;
  if (!Array.isArray(list)) throw new ProtocolHttpError(422, 'command.resume.decisions must be a list of decisions ({type: "approve" | "edit" | "reject"}).');
  if (list.length !== asking.length) throw new ProtocolHttpError(422, `command.resume.decisions: ${asking.length} pending, ${list.length} given.`);
  return list.map((raw, i) => {
    const at = `command.resume.decisions[${i}]`;
    const d = (raw ?? {}) as { type?: unknown; message?: unknown; editedAction?: unknown; edited_action?: unknown };
    if (d.type === 'approve') return { type: 'approve' };
    if (d.type === 'reject') {
      if (d.message !== undefined && typeof d.message !== 'string') throw new ProtocolHttpError(422, `${at}.message must be a string.`);
      return { type: 'reject', ...(typeof d.message === 'string' ? { message: d.message } : {}) };
    }
    if (d.type === 'edit') {
      const edited = (d.editedAction ?? d.edited_action) as { name?: unknown; args?: unknown } | undefined;
      if (edited === undefined || edited === null || typeof edited.args !== 'object' || edited.args === null || Array.isArray(edited.args)) {
        throw new ProtocolHttpError(422, `${at}.editedAction must be {name, args} with args an object.`);
      }
      if (edited.name !== undefined && edited.name !== asking[i]!.request.toolName) throw new ProtocolHttpError(422, `${at}.editedAction.name: an edit keeps the tool (${asking[i]!.request.toolName}).`);
      return { type: 'edit', args: edited.args as Record<string, unknown> };
    }
    throw new ProtocolHttpError(422, `${at}.type must be approve, edit or reject.`);
  });
}
