// What a tool call does and which paths it touches, for permission rules.
import { normalizeVirtualPath } from '../../backends/paths';
import type { Operation, PermissionRequest } from './types';

const OPERATIONS: Record<string, Operation> = {
  ls: 'read',
  read_file: 'read',
  glob: 'read',
  grep: 'read',
  write_file: 'write',
  edit_file: 'edit',
  delete_file: 'delete',
  execute: 'execute',
};

const FOLDER_TOOLS = new Set(['ls', 'glob', 'grep']);

/** The operation of a built-in tool; null for tools without side effects of their own (task, write_todos, ...). */
export function operationOf(tool: string): Operation | null {
  return Object.hasOwn(OPERATIONS, tool) ? OPERATIONS[tool]! : null;
}

/**
 * The normalised virtual paths in a call's `file_path` and `path` arguments (ls, glob and
 * grep default to `/`). Paths that normalizeVirtualPath refuses are left out: the tool
 * refuses them too, so nothing is touched.
 */
export function targetPaths(request: PermissionRequest): string[] {
  const args = argsOf(request);
  const paths: string[] = [];
  for (const key of ['file_path', 'path']) {
    const value = args[key];
    if (typeof value !== 'string') continue;
    const checked = normalizeVirtualPath(value);
    if (checked.ok && !paths.includes(checked.path)) paths.push(checked.path);
  }
  if (paths.length === 0 && FOLDER_TOOLS.has(request.tool)) paths.push('/');
  return paths;
}

/** The call's arguments, or an empty object when a model sent something else. */
export function argsOf(request: PermissionRequest): Record<string, unknown> {
  const args: unknown = request.args;
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}
