// How a tool call reads in a card header, and where an offloaded result went.

import { clip } from './format';

const PATH_TOOLS = new Set(['ls', 'read_file', 'write_file', 'edit_file']);

function record(args: unknown): Record<string, unknown> {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** A one-line description of a call's arguments, e.g. the path, command or pattern. */
export function summarizeArgs(name: string, args: unknown): string {
  const a = record(args);
  const s = (key: string): string | undefined => (typeof a[key] === 'string' ? (a[key] as string) : undefined);
  if (name === 'execute') return clip(firstLine(s('command') ?? ''), 120);
  if (PATH_TOOLS.has(name)) return s('file_path') ?? s('path') ?? '';
  if (name === 'grep') return [s('pattern') && JSON.stringify(s('pattern')), s('path'), s('glob')].filter(Boolean).join(' in ');
  if (name === 'glob') return [s('pattern'), s('path')].filter(Boolean).join(' in ');
  if (name === 'task') return clip([s('subagent_type'), firstLine(s('description') ?? '')].filter(Boolean).join(': '), 120);
  if (name === 'write_todos') return Array.isArray(a.todos) ? `${a.todos.length} item${a.todos.length === 1 ? '' : 's'}` : '';
  if (args === undefined) return '';
  const json = safeJson(args);
  return json === '{}' ? '' : clip(json, 120);
}

/** The command of an `execute` call, or null. */
export function commandOf(args: unknown): string | null {
  const command = record(args).command;
  return typeof command === 'string' ? command : null;
}

export function safeJson(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return String(value);
  }
}

const OFFLOAD_PATTERN = /\/(?:large_tool_results|conversation_history)\/[^\s'"`)\]<>,;]+/;

/** Where a tool's result was offloaded to: `evictedTo`, else a path named in the output. */
export function offloadedPath(output: string | undefined, evictedTo?: string): string | null {
  if (evictedTo) return evictedTo;
  if (!output) return null;
  const match = OFFLOAD_PATTERN.exec(output);
  return match ? match[0].replace(/[.:]+$/, '') : null;
}

/** The first `n` lines of `text`, and how many lines were left out. */
export function previewLines(text: string, n: number): { text: string; hidden: number } {
  const lines = text.split('\n');
  if (lines.length <= n) return { text, hidden: 0 };
  return { text: lines.slice(0, n).join('\n'), hidden: lines.length - n };
}

function firstLine(text: string): string {
  const i = text.indexOf('\n');
  return i < 0 ? text : `${text.slice(0, i)} …`;
}
