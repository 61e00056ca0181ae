// The facts of a stored tool result for the window (how a command ended, why a call did not
// run, where a large result went). A result stored before results carried them has only its
// text: for such a result, and only here, the facts are read from core's words.

import type { ChatMessage } from '../../core/models/types';
import { resultFacts, type ToolResultFacts } from '../../core/tools/result-facts';
import { evictedPathOf } from '../../core/agent/middleware/eviction';
import { INTERRUPTED_RESULT } from '../../core/agent/dangling';
import { PLAN_MODE_REFUSAL } from '../../core/agent/permissions/modes';
import { HOOK_BLOCK_PREFIX } from '../../core/agent/middleware/hooks';

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

export function storedResultFacts(message: ToolMessage, text: string): ToolResultFacts {
  const facts = resultFacts(message);
  return Object.keys(facts).length > 0 ? facts : factsOfText(message, text);
}

/** The status line execute ends with (before a `[Sandbox blocked …]` line, if any). */
const EXIT_LINE = /\[Command (?:succeeded|failed) with exit code (-?\d+)\](?:\n\[Sandbox blocked[^\n]*)?$/;
const TIMED_OUT = /^\[Command timed out after [^\]\n]*\]$/m;
const CANCELLED = /\[Command was cancelled[^\]\n]*\](?:\n\[Sandbox blocked[^\n]*)?$/;
const PERSON_REJECTED = /^Error: the person rejected this \S+ call; it was not run\.(?: They said: ([\s\S]*))?$/;
const PERSON_ANSWERED = /^The person did not run this \S+ call and answered instead:\n([\s\S]*)$/;
const RULE_DENIED = /^Error: this \S+ call is not allowed: /;

function factsOfText(message: ToolMessage, text: string): ToolResultFacts {
  if (text === INTERRUPTED_RESULT) return { interrupted: true };
  if (text === `Error: ${PLAN_MODE_REFUSAL}`) return { rejected: { by: 'mode' } };
  if (text.startsWith(`Error: ${HOOK_BLOCK_PREFIX}`)) return { rejected: { by: 'hook' } };
  if (RULE_DENIED.test(text)) return { rejected: { by: 'rule' } };
  const rejected = PERSON_REJECTED.exec(text);
  if (rejected) return { rejected: { by: 'person', ...(rejected[1] !== undefined ? { message: rejected[1] } : {}) } };
  const answered = PERSON_ANSWERED.exec(text);
  if (answered) return { rejected: { by: 'person', answered: true, message: answered[1]! } };
  const evictedTo = evictedPathOf(message);
  const facts: ToolResultFacts = evictedTo !== undefined ? { evictedTo } : {};
  if (message.toolName !== 'execute') return facts;
  const end = text.trimEnd();
  const exit = EXIT_LINE.exec(end);
  if (TIMED_OUT.test(end)) return { ...facts, exitCode: exit ? Number(exit[1]) : 124, timedOut: true };
  if (exit) return { ...facts, exitCode: Number(exit[1]) };
  if (CANCELLED.test(end)) return { ...facts, exitCode: null };
  return facts;
}
