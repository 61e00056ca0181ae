// A call the reviewer denied, allowed once by the person's explicit act (SPEC §23 "Denied"): its
// tool and arguments are kept on the thread as one key (canonical JSON, as the window's
// once-answers key a call); the next identical call runs, decided by the person, spending it.

import { canonicalJson } from '../../text/canonical-json';
import type { ApprovalRequest, ThreadState } from '../types';

/** Keeps the thread's reviewer-denied call `callId` (its own or a subagent's) to be allowed once; null when there is none. */
export function allowOnce(state: ThreadState, callId: string): { name: string; args: Record<string, unknown> } | null {
  for (const messages of [state.messages, ...Object.values(state.subagentRuns ?? {})]) {
    const result = messages.find((m) => m.role === 'tool' && m.toolCallId === callId);
    if (result?.role !== 'tool' || result.decided?.by !== 'reviewer' || result.decided.review?.decision !== 'deny') continue;
    const call = messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).find((c) => c.id === callId && c.parseError === undefined);
    if (call === undefined) continue;
    const args = (call.args ?? {}) as Record<string, unknown>;
    state.allowedOnce = [...new Set([...(state.allowedOnce ?? []), canonicalJson([call.name, args])])];
    return { name: call.name, args };
  }
  return null;
}

/** Spends the thread's allowance for exactly this call: whether it had one. */
export function takeAllowedOnce(state: ThreadState, question: Pick<ApprovalRequest, 'toolName' | 'args'>): boolean {
  const key = canonicalJson([question.toolName, question.args]);
  if (!(state.allowedOnce ?? []).includes(key)) return false;
  state.allowedOnce = state.allowedOnce!.filter((k) => k !== key);
  return true;
}
