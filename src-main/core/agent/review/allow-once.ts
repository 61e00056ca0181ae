// A call the reviewer denied, allowed once by the person's explicit act (SPEC §23 "Denied"): its
// tool and arguments are kept on the thread as one key (canonical JSON, as the window's
// once-answers key a call); the next identical call runs, decided by the person, spending it,
// and its record names the denied call it was allowed from.

import { canonicalJson } from '../../text/canonical-json';
import type { ApprovalRequest, ThreadState } from '../types';

interface DeniedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** The thread's calls the reviewer denied (its own and its subagents'), oldest first in each. */
function deniedCalls(state: ThreadState): DeniedCall[] {
  const denied: DeniedCall[] = [];
  for (const messages of [state.messages, ...Object.values(state.subagentRuns ?? {})]) {
    const calls = new Map(messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).map((c) => [c.id, c]));
    for (const result of messages) {
      if (result.role !== 'tool' || result.decided?.by !== 'reviewer' || result.decided.review?.decision !== 'deny') continue;
      const call = calls.get(result.toolCallId);
      if (call !== undefined && call.parseError === undefined) denied.push({ id: call.id, name: call.name, args: (call.args ?? {}) as Record<string, unknown> });
    }
  }
  return denied;
}

const keyOf = (name: string, args: Record<string, unknown>): string => canonicalJson([name, args]);

/** Keeps the thread's reviewer-denied call `callId` (its own or a subagent's) to be allowed once; null when there is none. */
export function allowOnce(state: ThreadState, callId: string): { name: string; args: Record<string, unknown> } | null {
  const call = deniedCalls(state).find((c) => c.id === callId);
  if (call === undefined) return null;
  state.allowedOnce = [...new Set([...(state.allowedOnce ?? []), keyOf(call.name, call.args)])];
  return { name: call.name, args: call.args };
}

/** Spends the thread's allowance for exactly this call: the id of the denied call it was given for (the latest of that key), or undefined when it had none. */
export function takeAllowedOnce(state: ThreadState, question: Pick<ApprovalRequest, 'toolName' | 'args'>): string | undefined {
  const key = keyOf(question.toolName, question.args);
  if (!(state.allowedOnce ?? []).includes(key)) return undefined;
  state.allowedOnce = state.allowedOnce!.filter((k) => k !== key);
  return deniedCalls(state).findLast((c) => keyOf(c.name, c.args) === key)?.id ?? '';
}
