// How a tool call reads in a card header.

import type { ResultGistDto } from '../../../src-main/app/contract';
import { clip } from './format';
import { mediaReadLabel, plural } from './media-read-label';
import { firstLine, record } from './tool-title';
import { visibleText } from './visible-text';

const PATH_TOOLS = new Set(['ls', 'read_file', 'write_file', 'edit_file']);

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

/**
 * A tool card's accessible name: the tool, its target and its status, e.g.
 * `execute npm test — Failed · exit 1` (the status without the ticking elapsed time). The
 * target is the model's text: its invisible and direction-changing characters are read as escapes.
 */
export function toolCardName(name: string, args: unknown, status: string): string {
  const target = visibleText(summarizeArgs(name, args));
  return `${name}${target ? ` ${clip(target, 100)}` : ''} — ${status}`;
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

/** The last `n` lines of `text` (where errors are), and how many lines came before. */
export function tailLines(text: string, n: number): { text: string; hidden: number } {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= n) return { text: lines.join('\n'), hidden: 0 };
  return { text: lines.slice(-n).join('\n'), hidden: lines.length - n };
}

/** Tools whose card is one line (`Read README.md · 120 lines`), expandable. */
export const ONE_LINE_TOOLS = new Set(['read_file', 'grep', 'glob', 'ls']);

function shortPath(path: string | undefined): string {
  if (!path || path === '/') return path === '/' ? 'the folder' : '';
  return path.replace(/^\//, '');
}

/** A tool's result as a one-line card reads it: its text only for a failure's first line, else the facts the tool counted. */
export interface ShownResult {
  output: string;
  isError?: boolean;
  gist?: ResultGistDto;
}

/**
 * What the result of a read, grep, glob or ls amounts to, e.g. `120 lines`, `3 files`: from
 * the facts the tool counted (`gist`). A result stored before results carried them says
 * nothing more than that the call is done (its words are never read for counts).
 */
function resultCount(name: string, result: ShownResult, args: Record<string, unknown>): string {
  if (result.isError === true) return failureLine(result.output);
  const gist = result.gist;
  if (gist === undefined) return '';
  switch (gist.kind) {
    case 'read':
      return gist.to < gist.total ? `lines ${gist.from}–${gist.to} of ${gist.total}` : plural(gist.to - gist.from + 1, 'line');
    case 'read-empty':
      return 'empty';
    case 'grep':
      if (gist.matches === 0) return 'no matches';
      if (args.output_mode === 'content' || args.output_mode === 'count') return `${plural(gist.matches, 'match').replace('matchs', 'matches')} in ${plural(gist.files, 'file')}`;
      return plural(gist.files, 'file');
    case 'glob':
      return gist.files === 0 ? 'no files' : plural(gist.files, 'file');
    case 'ls':
      return gist.entries === 0 ? 'empty' : plural(gist.entries, 'entry').replace('entrys', 'entries');
    default:
      return (name === 'read_file' ? mediaReadLabel(gist) : undefined) ?? '';
  }
}

/** A failure's first line without its `Error: ` (SPEC §3: every failure starts so). */
function failureLine(output: string): string {
  const first = output.split('\n')[0]!;
  return first.startsWith(ERROR_PREFIX) ? first.slice(ERROR_PREFIX.length).trimStart() : first;
}

const ERROR_PREFIX = 'Error:';

/** The one line a read, grep, glob or ls card shows: what it did and what came back. */
export function oneLine(name: string, args: unknown, result: ShownResult | undefined): string {
  const a = record(args);
  const s = (key: string): string | undefined => (typeof a[key] === 'string' ? (a[key] as string) : undefined);
  const where = shortPath(s('path'));
  const what =
    name === 'read_file'
      ? `Read ${shortPath(s('file_path')) || 'a file'}`
      : name === 'grep'
        ? `Searched for ${JSON.stringify(s('pattern') ?? '')}${where ? ` in ${where}` : ''}${s('glob') ? ` (${s('glob')})` : ''}`
        : name === 'glob'
          ? `Found ${s('pattern') ?? '*'}${where ? ` in ${where}` : ''}`
          : `Listed ${where || 'the folder'}`;
  if (result === undefined) return what;
  const count = resultCount(name, result, a);
  return count ? `${what} · ${count}` : what;
}
