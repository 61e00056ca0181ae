// The state a tool card shows, from the call, its result, its approval and the run.

import type { ToolItem } from './thread-reducer';

export type ToolStatus = 'awaiting' | 'running' | 'done' | 'error' | 'rejected' | 'interrupted';

export function toolStatus(item: Pick<ToolItem, 'output' | 'isError' | 'approval'>, running: boolean, awaiting: boolean): { status: ToolStatus; label: string } {
  if (awaiting || (item.approval === 'pending' && item.output === undefined)) return { status: 'awaiting', label: 'Awaiting approval' };
  if (item.approval === 'rejected') return { status: 'rejected', label: 'Rejected' };
  if (item.approval === 'denied') return { status: 'rejected', label: 'Denied' };
  if (item.approval === 'responded') return { status: 'rejected', label: 'Answered instead' };
  if (item.output === undefined) return running ? { status: 'running', label: 'Running' } : { status: 'interrupted', label: 'No result' };
  if (item.isError) return { status: 'error', label: 'Error' };
  return { status: 'done', label: item.approval === 'edited' ? 'Done (edited)' : 'Done' };
}
