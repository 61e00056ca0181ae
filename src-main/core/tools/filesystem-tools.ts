import { editFileTool } from './edit-file';
import { executeTool, executeWithoutSandboxTool } from './execute';
import { globTool } from './glob';
import { grepTool } from './grep';
import { lsTool } from './ls';
import { readFileTool } from './read-file';
import type { AgentTool } from './tool';
import { writeFileTool } from './write-file';

/**
 * The file tools of SPEC §3, plus execute when the workspace can run commands: with its
 * `sandbox` and `reason` arguments unless told there is no sandbox to leave.
 */
export function filesystemTools(options: { execute: boolean; sandbox?: boolean }): AgentTool[] {
  const tools = [lsTool, readFileTool, writeFileTool, editFileTool, globTool, grepTool];
  if (!options.execute) return tools;
  return [...tools, options.sandbox === false ? executeWithoutSandboxTool : executeTool];
}

/** Tools whose results are never evicted to /large_tool_results/ (they page or are bounded already). */
export const NON_EVICTABLE_TOOLS: ReadonlySet<string> = new Set(['ls', 'glob', 'grep', 'read_file', 'write_file', 'edit_file']);
