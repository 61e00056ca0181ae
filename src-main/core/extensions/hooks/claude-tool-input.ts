// What a hook is told about a tool call, as Claude Code tells it (SPEC §11): Claude Code's
// name for the tool and its input fields with real absolute paths, so existing scripts that
// check `tool_name == "Bash"` or an absolute `file_path` decide the same way here; and the
// hook's `updatedInput`, in those fields, taken back into Deepdesk's arguments.

import { realPathOf, virtualPathOf, type EditorPaths } from '../../backends/mounts/real-paths';
import { CLAUDE_CODE_NAMES } from '../../tools/claude-code-names';

const PATH_FIELDS = ['file_path', 'path'] as const;

export interface ClaudeToolCall {
  tool_name: string;
  tool_input: Record<string, unknown>;
}

export function claudeToolCall(name: string, args: Record<string, unknown>, paths: EditorPaths): ClaudeToolCall {
  const input: Record<string, unknown> = { ...args };
  for (const field of PATH_FIELDS) {
    const value = input[field];
    if (typeof value === 'string') input[field] = realPathOf(paths, value) ?? value;
  }
  // Claude Code's Bash timeout is in milliseconds, Deepdesk's execute's in seconds.
  if (name === 'execute' && typeof input.timeout === 'number') input.timeout = input.timeout * 1000;
  // Claude Code's Task has a short description and the whole task as its prompt.
  if (name === 'task' && typeof input.description === 'string') input.prompt = input.description;
  return { tool_name: Object.hasOwn(CLAUDE_CODE_NAMES, name) ? CLAUDE_CODE_NAMES[name]! : name, tool_input: input };
}

/** A hook's `updatedInput` (Claude Code's fields) as Deepdesk's arguments: real paths back to the thread's paths. */
export function deepdeskToolArgs(name: string, updated: Record<string, unknown>, paths: EditorPaths): Record<string, unknown> {
  const args: Record<string, unknown> = { ...updated };
  for (const field of PATH_FIELDS) {
    const value = args[field];
    if (typeof value === 'string' && value.startsWith('/')) args[field] = virtualPathOf(paths, value) ?? value;
  }
  if (name === 'execute' && typeof args.timeout === 'number') args.timeout = args.timeout / 1000;
  if (name === 'task') {
    if (typeof args.prompt === 'string') args.description = args.prompt;
    delete args.prompt;
  }
  return args;
}

/** `tool_response` as Claude Code gives it for its tools; the text of the result for the others. */
export function claudeToolResponse(name: string, input: ClaudeToolCall['tool_input'], output: { text: string; isError: boolean }): unknown {
  if (name === 'execute') return { stdout: output.text, stderr: '', interrupted: false, isImage: false };
  if (name === 'write_file' || name === 'edit_file') return { filePath: input.file_path, success: !output.isError, ...(output.isError ? { error: output.text } : {}) };
  return { output: output.text, isError: output.isError };
}
