// The state a tool card shows, truthfully, from the call, its result, its approval and the
// run (SPEC §6): Done, Failed · exit N, Timed out, Stopped, Rejected, Answered, Error;
// Running while it runs; Awaiting approval while it waits.

import type { ToolItem } from './thread-reducer';

export type ToolStatus = 'awaiting' | 'running' | 'done' | 'failed' | 'timeout' | 'stopped' | 'error' | 'rejected' | 'answered';

export interface ToolStatusView {
  status: ToolStatus;
  label: string;
  /** More words for a tooltip, when the label alone hides something. */
  detail?: string;
}

const EXIT_LINE = /\[Command (?:succeeded|failed) with exit code (-?\d+)\]\s*$/;
const TIMED_OUT = /\[Command timed out after [^\]]*\]/;
const CANCELLED = /\[Command was cancelled[^\]]*\]\s*$/;
const INTERRUPTED = /^Error: this tool call was interrupted/;
const REJECTED = /^Error: the person rejected this /;
const ANSWERED = /^The person did not run this \S+ call and answered instead/;
const DENIED = /^Error: .*\b(?:denied|not allowed by a rule|refused by a rule)\b/i;

/** The exit code an execute result reports, or null. */
export function exitCodeOf(output: string): number | null {
  const m = EXIT_LINE.exec(output);
  return m ? Number(m[1]) : null;
}

export function toolStatus(item: Pick<ToolItem, 'name' | 'output' | 'isError' | 'approval' | 'blockedByHook'>, running: boolean, awaiting: boolean): ToolStatusView {
  if (awaiting || (item.approval === 'pending' && item.output === undefined)) return { status: 'awaiting', label: 'Awaiting approval' };
  const output = item.output;
  if (item.approval === 'rejected' || (output !== undefined && REJECTED.test(output))) return { status: 'rejected', label: 'Rejected' };
  if (item.approval === 'denied') return { status: 'rejected', label: 'Rejected', detail: item.blockedByHook !== undefined ? 'Blocked by a hook' : 'Refused by a rule' };
  if (item.approval === 'responded' || (output !== undefined && ANSWERED.test(output))) return { status: 'answered', label: 'Answered' };
  if (output === undefined) return running ? { status: 'running', label: 'Running' } : { status: 'stopped', label: 'Stopped', detail: 'The run ended before this call returned' };
  if (INTERRUPTED.test(output)) return { status: 'stopped', label: 'Stopped', detail: 'Interrupted before it finished' };
  if (item.name === 'execute') {
    if (TIMED_OUT.test(output)) return { status: 'timeout', label: 'Timed out' };
    if (CANCELLED.test(output)) return { status: 'stopped', label: 'Stopped' };
    const code = exitCodeOf(output);
    if (code === 124) return { status: 'timeout', label: 'Timed out', detail: 'Exit code 124' };
    if (code !== null && code !== 0) return { status: 'failed', label: `Failed · exit ${code}` };
  }
  if (item.isError) return { status: 'error', label: 'Error', ...(DENIED.test(output) ? { detail: 'Refused by a rule' } : {}) };
  return { status: 'done', label: 'Done', ...(item.approval === 'edited' ? { detail: 'Ran with your edits' } : {}) };
}
