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
/** What every MCP tool's name starts with (SPEC §10: `mcp__<server>__<tool>`). */
export const MCP_PREFIX = 'mcp__';

/** The operation of a built-in tool; null for tools without side effects of their own (task, write_todos, ...) and MCP tools. */
export function operationOf(tool: string): Operation | null {
  return Object.hasOwn(OPERATIONS, tool) ? OPERATIONS[tool]! : null;
}

/** An MCP server's tool (`mcp__server__tool`, SPEC §10): its effects are the server's, unknown here. */
export function isMcpTool(tool: string): boolean {
  return tool.startsWith(MCP_PREFIX);
}

/** Whether a rule's tool name covers the tool: exactly, `*`, or an MCP prefix ending in `*` (`mcp__*`, `mcp__server__*`). */
export function toolNameMatches(pattern: string, tool: string): boolean {
  if (pattern === '*' || pattern === tool) return true;
  return pattern.endsWith('*') && pattern.startsWith(MCP_PREFIX) && isMcpTool(tool) && tool.startsWith(pattern.slice(0, -1));
}

/**
 * The normalised virtual paths in a built-in tool's `file_path` and `path` arguments (ls,
 * glob and grep default to `/`). Paths that normalizeVirtualPath refuses are left out: the tool
 * refuses them too, so nothing is touched.
 */
export function targetPaths(request: PermissionRequest): string[] {
  // Another tool's `path` means whatever that tool makes of it (an MCP server's host path), not a virtual path.
  if (operationOf(request.tool) === null) return [];
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
