// Deep Agents' human-in-the-loop over the Agent Protocol (SPEC §19): the approvals a host run
// waits on as langchain's humanInTheLoopMiddleware interrupt value, and a run's
// `command.resume` decisions back into the host's approval answers. An interrupt's id names
// the very approvals it shows (a hash of the thread and their keys, 32 hex digits as
// LangGraph's interrupt ids are), so that a resume keyed by it answers those and no others.

import { createHash } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest } from '../../../core/agent/types';
import type { PendingQuestion } from '../../host/run-views';
import type { ProtocolInterrupt } from './context';
import { ProtocolHttpError } from './http';

const ALLOWED_DECISIONS = ['approve', 'edit', 'reject'] as const;

/**
 * The approvals a host run waits on as one human-in-the-loop interrupt (langchain's
 * humanInTheLoopMiddleware value), its fields in both spellings: camelCase as the JS middleware
 * and the SDK's types name them, snake_case as Python's middleware sends them and
 * deep-agents-ui and agent-chat-ui read them.
 */
export function interruptOf(threadId: string, asking: readonly PendingQuestion[]): ProtocolInterrupt {
  const actionRequests = asking.map(({ request }) => ({ name: request.toolName, args: request.args, description: descriptionOf(request) }));
  const reviewConfigs = asking.map(({ request }) => ({ actionName: request.toolName, action_name: request.toolName, allowedDecisions: [...ALLOWED_DECISIONS], allowed_decisions: [...ALLOWED_DECISIONS] }));
  return {
    id: interruptId(threadId, asking.map((q) => q.key)),
    value: { actionRequests, action_requests: actionRequests, reviewConfigs, review_configs: reviewConfigs },
  };
}

function descriptionOf(request: ApprovalRequest): string {
  return `${request.reason}\n\nTool: ${request.toolName}\nArgs: ${JSON.stringify(request.args, null, 2)}`;
}

/** The id of the interrupt showing the approvals `keys` (in that order) of `threadId`: the same approvals, the same id; any other, another. */
export function interruptId(threadId: string, keys: readonly string[]): string {
  return createHash('sha256').update(`${threadId}\0${keys.join('\0')}`).digest('hex').slice(0, 32);
}

/**
 * A `command.resume` read: keyed by interrupt id (`{[interruptId]: {decisions}}`, as LangGraph's
 * `Command(resume={id: value})` and Agent Chat UI send it), or one bare value for whatever is
 * pending (`{decisions}`). An object without `decisions` whose keys are not ids is keyed too, so
 * that an id nobody issued is refused by name rather than read as something else.
 */
export type Resume = { kind: 'keyed'; answers: Array<[id: string, value: unknown]> } | { kind: 'positional'; value: unknown };

export function resumeOf(resume: unknown): Resume {
  if (resume === null || typeof resume !== 'object' || Array.isArray(resume)) return { kind: 'positional', value: resume };
  const entries = Object.entries(resume as Record<string, unknown>);
  if (entries.length === 0 || Object.hasOwn(resume, 'decisions')) return { kind: 'positional', value: resume };
  return { kind: 'keyed', answers: entries };
}

/** A resume value as the middleware reads it: `{decisions: [...]}`, one per question of the interrupt, in order. `at`: where it is in the request. */
export function decisionsOf(resume: unknown, asking: readonly PendingQuestion[], at = 'command.resume'): ApprovalDecision[] {
  const list = resume !== null && typeof resume === 'object' ? (resume as { decisions?: unknown }).decisions : undefined;
  if (!Array.isArray(list)) throw new ProtocolHttpError(422, `${at}.decisions must be a list of decisions ({type: "approve" | "edit" | "reject"}).`);
  if (list.length !== asking.length) throw new ProtocolHttpError(422, `${at}.decisions: ${asking.length} pending, ${list.length} given.`);
  return list.map((raw, i) => {
    const where = `${at}.decisions[${i}]`;
    const d = (raw ?? {}) as { type?: unknown; message?: unknown; editedAction?: unknown; edited_action?: unknown };
    if (d.type === 'approve') return { type: 'approve' };
    if (d.type === 'reject') {
      if (d.message !== undefined && d.message !== null && typeof d.message !== 'string') throw new ProtocolHttpError(422, `${where}.message must be a string.`);
      // deep-agents-ui sends `message: ""` when the person gave no reason: that is no message.
      return { type: 'reject', ...(typeof d.message === 'string' && d.message.trim() !== '' ? { message: d.message } : {}) };
    }
    if (d.type === 'edit') {
      const edited = (d.editedAction ?? d.edited_action) as { name?: unknown; args?: unknown } | undefined;
      if (edited === undefined || edited === null || typeof edited.args !== 'object' || edited.args === null || Array.isArray(edited.args)) {
        throw new ProtocolHttpError(422, `${where}.editedAction must be {name, args} with args an object.`);
      }
      if (edited.name !== undefined && edited.name !== asking[i]!.request.toolName) throw new ProtocolHttpError(422, `${where}.editedAction.name: an edit keeps the tool (${asking[i]!.request.toolName}).`);
      return { type: 'edit', args: edited.args as Record<string, unknown> };
    }
    throw new ProtocolHttpError(422, `${where}.type must be approve, edit or reject.`);
  });
}
