// The untrusted sources a model request holds (SPEC §25): every tool result in its messages
// that did not come from the person — from any turn, and those a summary stands in for —
// each named by what it was (`read_file /README.md`, `execute npm test`, `mcp github.get_issue`),
// and the output of hooks told to the model as notes (`hook output`).
// Unknown tools count (fail closed); only results that carry nothing from outside do not:
// a write's or an edit's confirmation, the todo list, and reads of active memories.

import type { ChatMessage, ToolCall } from '../models/types';

const MEMORIES = '/memories';
const MCP_PREFIX = 'mcp__';

/** Tools whose results carry only what the model itself sent. */
const OWN_RESULTS = new Set(['write_file', 'edit_file', 'write_todos']);

/** The names of the untrusted sources in `messages`, each once, in the order they came. */
export function untrustedSources(messages: readonly ChatMessage[]): string[] {
  const calls = new Map<string, ToolCall>();
  const names = new Set<string>();
  for (const m of messages) {
    // A hook's output is told to the model as a note: a program's text, not the person's.
    if (m.role === 'user' && m.note?.kind === 'hook') names.add('hook output');
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.set(c.id, c);
    if (m.role !== 'tool') continue;
    const name = sourceName(m.toolName, calls.get(m.toolCallId)?.args);
    if (name !== null) names.add(name);
  }
  return [...names];
}

/** A tool result's source name, or null when it carries nothing from outside. */
export function sourceName(tool: string, args: unknown): string | null {
  if (OWN_RESULTS.has(tool)) return null;
  const a = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  const str = (key: string): string | undefined => (typeof a[key] === 'string' ? (a[key] as string) : undefined);
  switch (tool) {
    case 'read_file':
      return inMemories(str('file_path')) ? null : `read_file ${str('file_path') ?? '?'}`;
    case 'ls':
      return inMemories(str('path')) ? null : `ls ${str('path') ?? '/'}`;
    case 'glob':
      return inMemories(str('path')) ? null : `glob ${str('pattern') ?? '?'} ${str('path') ?? '/'}`;
    case 'grep':
      return inMemories(str('path')) ? null : `grep ${str('pattern') ?? '?'} ${str('path') ?? '/'}`;
    case 'execute':
      return `execute ${str('command') ?? '?'}`;
    case 'task':
      return `task ${str('subagent_type') ?? 'general-purpose'}`;
  }
  if (tool.startsWith(MCP_PREFIX)) {
    const rest = tool.slice(MCP_PREFIX.length);
    const cut = rest.indexOf('__');
    return cut < 0 ? `mcp ${rest}` : `mcp ${rest.slice(0, cut)}.${rest.slice(cut + 2)}`;
  }
  return tool;
}

/** Reads of /memories/ itself: memories in use are active (approved, or written without untrusted text) or the thread's own proposals. */
function inMemories(path: string | undefined): boolean {
  return path !== undefined && (path === MEMORIES || path.startsWith(`${MEMORIES}/`)) && !path.includes('..');
}
