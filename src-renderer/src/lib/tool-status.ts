// The state a tool card shows, truthfully, from the call, its result, its approval and the
// run (SPEC §6): Done, Failed · exit N, Timed out, Stopped, Rejected, Answered, Error;
// Running while it runs; Awaiting approval while it waits; Reviewing while the reviewer
// (SPEC §23) looks at it.

import type { ToolItem } from './thread-reducer';

export type ToolStatus = 'awaiting' | 'reviewing' | 'running' | 'done' | 'failed' | 'timeout' | 'stopped' | 'error' | 'rejected' | 'answered';

export interface ToolStatusView {
  status: ToolStatus;
  label: string;
  /** More words for a tooltip, when the label alone hides something. */
  detail?: string;
}

const REFUSED_BY = { rule: 'Refused by a rule', hook: 'Blocked by a hook', mode: 'Plan mode is read-only', reviewer: 'Denied by the reviewer' } as const;

export function toolStatus(
  item: Pick<ToolItem, 'name' | 'output' | 'isError' | 'approval' | 'decidedBy' | 'blockedByHook' | 'exitCode' | 'timedOut' | 'rejected' | 'interrupted'>,
  running: boolean,
  awaiting: boolean,
): ToolStatusView {
  if (awaiting || (item.approval === 'pending' && item.output === undefined)) return { status: 'awaiting', label: 'Awaiting approval' };
  if (item.approval === 'reviewing' && item.output === undefined) return { status: 'reviewing', label: 'Reviewing', detail: 'The reviewer is looking at this call' };
  const { rejected } = item;
  if (item.approval === 'responded' || rejected?.answered === true) return { status: 'answered', label: 'Answered' };
  if (item.decidedBy === 'reviewer' && (item.approval === 'rejected' || item.approval === 'denied')) return { status: 'rejected', label: 'Rejected', detail: REFUSED_BY.reviewer };
  if (item.approval === 'rejected' || rejected?.by === 'person') return { status: 'rejected', label: 'Rejected' };
  if (item.approval === 'denied') return { status: 'rejected', label: 'Rejected', detail: item.blockedByHook !== undefined ? REFUSED_BY.hook : REFUSED_BY.rule };
  if (rejected !== undefined) return { status: 'rejected', label: 'Rejected', detail: REFUSED_BY[rejected.by] };
  const output = item.output;
  if (output === undefined) return running ? { status: 'running', label: 'Running' } : { status: 'stopped', label: 'Stopped', detail: 'The run ended before this call returned' };
  if (item.interrupted) return { status: 'stopped', label: 'Stopped', detail: 'Interrupted before it finished' };
  if (item.timedOut) return { status: 'timeout', label: 'Timed out' };
  if (item.exitCode === null) return { status: 'stopped', label: 'Stopped' };
  if (item.exitCode === 124) return { status: 'timeout', label: 'Timed out', detail: 'Exit code 124' };
  if (item.exitCode !== undefined && item.exitCode !== 0) return { status: 'failed', label: `Failed · exit ${item.exitCode}` };
  if (item.isError) return { status: 'error', label: 'Error' };
  return { status: 'done', label: 'Done', ...(item.approval === 'edited' ? { detail: 'Ran with your edits' } : {}) };
}
