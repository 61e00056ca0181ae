// A call the reviewer denied, allowed once by the person's explicit act (SPEC §23 "Denied"):
// its tool and arguments are kept on the thread as one key (canonical JSON of both, as the
// window's once-answers key a call), and the next identical call is allowed, decided by the
// person, spending the key. A deny rule's or a protected path's refusal never gets here.

import type { ChatMessage } from '../../models/types';
import { canonicalJson } from '../../text/canonical-json';
import type { ApprovalRequest, ThreadState } from '../types';

export interface DeniedCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * Keeps the thread's call `callId` (its own or a subagent's) to be allowed once; null when
 * no such call was denied by the reviewer.
 */
export function allowOnce(state: ThreadState, callId: string): DeniedCall | null {
  const denied = reviewerDenied([state.messages, ...Object.values(state.subagentRuns ?? {})], callId);
  if (denied === null) return null;
  const key = callKey(denied.name, denied.args);
  if (!(state.allowedOnce ?? []).includes(key)) state.allowedOnce = [...(state.allowedOnce ?? []), key];
  return denied;
}

/** Spends the thread's allowance for exactly this call: whether it had one. */
export function takeAllowedOnce(state: ThreadState, question: Pick<ApprovalRequest, 'toolName' | 'args'>): boolean {
  const key = callKey(question.toolName, question.args);
  const kept = state.allowedOnce ?? [];
  if (!kept.includes(key)) return false;
  const rest = kept.filter((k) => k !== key);
  if (rest.length > 0) state.allowedOnce = rest;
  else delete state.allowedOnce;
  return true;
}

function callKey(tool: string, args: unknown): string {
  return canonicalJson([tool, args ?? {}]);
}

function reviewerDenied(histories: ReadonlyArray<readonly ChatMessage[]>, callId: string): DeniedCall | null {
  for (const messages of histories) {
    const result = messages.find((m) => m.role === 'tool' && m.toolCallId === callId);
    if (result?.role !== 'tool' || result.decided?.by !== 'reviewer' || result.decided.review?.decision !== 'deny') continue;
    const call = messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).find((c) => c.id === callId);
    if (call !== undefined && call.parseError === undefined) return { name: call.name, args: (call.args ?? {}) as Record<string, unknown> };
  }
  return null;
}
