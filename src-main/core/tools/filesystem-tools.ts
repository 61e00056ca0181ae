import { editFileTool } from './edit-file';
import { executeTool } from './execute';
import { globTool } from './glob';
import { grepTool } from './grep';
import { lsTool } from './ls';
import { readFileTool } from './read-file';
import type { AgentTool } from './tool';
import { writeFileTool } from './write-file';

/** The file tools of SPEC §3, plus execute when the workspace can run commands. */
export function filesystemTools(options: { execute: boolean }): AgentTool[] {
  const tools = [lsTool, readFileTool, writeFileTool, editFileTool, globTool, grepTool];
  return options.execute ? [...tools, executeTool] : tools;
}

/** Tools whose results are never evicted to /large_tool_results/ (they page or are bounded already). */
export const NON_EVICTABLE_TOOLS: ReadonlySet<string> = new Set(['ls', 'glob', 'grep', 'read_file', 'write_file', 'edit_file']);
