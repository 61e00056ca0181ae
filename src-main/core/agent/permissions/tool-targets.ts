// What a tool call does and which paths it touches, for permission rules.
import { normalizeVirtualPath } from '../../backends/paths';
import type { Operation, PermissionRequest } from './types';
import { MCP_PREFIX, MCP_SEPARATOR } from '../../extensions/mcp/naming';

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

/** The operation of a built-in tool; null for tools without side effects of their own (task, write_todos, ...) and MCP tools. */
export function operationOf(tool: string): Operation | null {
  return Object.hasOwn(OPERATIONS, tool) ? OPERATIONS[tool]! : null;
}

/** An MCP server's tool (`mcp__server__tool`, SPEC §10): its effects are the server's, unknown here. */
export function isMcpTool(tool: string): boolean {
  return tool.startsWith(MCP_PREFIX);
}

/** An MCP tool's name by its parts: the server's part (up to the first `__` after `mcp__`) and the tool's; null for any other name. */
export function parseMcpName(name: string): { server: string; tool: string } | null {
  if (!isMcpTool(name)) return null;
  const rest = name.slice(MCP_PREFIX.length);
  const end = rest.indexOf(MCP_SEPARATOR);
  if (end <= 0) return null;
  return { server: rest.slice(0, end), tool: rest.slice(end + MCP_SEPARATOR.length) };
}

/**
 * Whether a rule's tool name covers the tool: exactly, `*`, `mcp__*` (every MCP tool), or an
 * MCP name whose tool part ends in `*` (`mcp__server__*`, `mcp__server__create*`), matched by
 * parts: the server's part must be the tool's exactly, so `mcp__notes__*` is every tool of the
 * server `notes` and of no other (not `notes_`'s, not `notes__x`'s). A star anywhere else is no
 * wildcard. `broad` (deny and ask rules) also takes a trailing `*` as a plain prefix of the name, as a
 * person who wrote `mcp__notes*` to refuse meant it: such a rule covers at least what it says.
 */
export function toolNameMatches(pattern: string, tool: string, options: { broad?: boolean } = {}): boolean {
  if (pattern === '*' || pattern === tool) return true;
  if (!pattern.endsWith('*') || !isMcpTool(tool) || !pattern.startsWith(MCP_PREFIX)) return false;
  if (pattern === `${MCP_PREFIX}*`) return true;
  if (options.broad && tool.startsWith(pattern.slice(0, -1))) return true;
  const want = parseMcpName(pattern);
  const have = parseMcpName(tool);
  if (want === null || have === null || want.server.includes('*') || want.server !== have.server) return false;
  return have.tool.startsWith(want.tool.slice(0, -1));
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
