// The diff an approval of an edit or a write shows (SPEC §6): the file as it is and as the
// call would leave it. The window draws it beside its approval; a terminal that asks
// (`deepdesk run`, `deepdesk attach`) prints it as a unified diff.

import type { ApprovalRequest } from '../../core/agent/types';
import type { Backend } from '../../core/backends/protocol';
import { applyEdit } from '../../core/backends/text';
import type { PendingApproval } from '../contract';

export type ApprovalPreview = NonNullable<PendingApproval['preview']>;

/** For write_file and edit_file: the file before and after the call, read through `backend`; else undefined. */
export async function approvalPreview(request: Pick<ApprovalRequest, 'toolName' | 'args'>, backend: Backend): Promise<ApprovalPreview | undefined> {
  const path = typeof request.args.file_path === 'string' ? request.args.file_path : undefined;
  if (path === undefined || (request.toolName !== 'write_file' && request.toolName !== 'edit_file')) return undefined;
  const raw = await backend.readRaw(path);
  const before = raw.data ? Buffer.from(raw.data).toString('utf8') : '';
  if (request.toolName === 'write_file') return { path, before, after: String(request.args.content ?? '') };
  const edited = applyEdit(before, String(request.args.old_string ?? ''), String(request.args.new_string ?? ''), request.args.replace_all === true);
  return { path, before, after: edited.ok ? edited.content : before };
}
