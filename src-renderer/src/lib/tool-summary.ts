// How a tool call reads in a card header.

import { clip } from './format';
import { mediaReadLabel } from './media-read-label';
import { visibleText } from './visible-text';

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

/** The last `n` lines of `text` (where errors are), and how many lines came before. */
export function tailLines(text: string, n: number): { text: string; hidden: number } {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= n) return { text: lines.join('\n'), hidden: 0 };
  return { text: lines.slice(-n).join('\n'), hidden: lines.length - n };
}

/** Tools whose card is one line (`Read README.md · 120 lines`), expandable. */
export const ONE_LINE_TOOLS = new Set(['read_file', 'grep', 'glob', 'ls']);

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function shortPath(path: string | undefined): string {
  if (!path || path === '/') return path === '/' ? 'the folder' : '';
  return path.replace(/^\//, '');
}

function nonEmptyLines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}

/** What the result of a read, grep, glob or ls amounts to, e.g. `120 lines`, `3 files`. */
function resultCount(name: string, output: string, args: Record<string, unknown>): string {
  if (output.startsWith('Error:')) return output.split('\n')[0]!.replace(/^Error:\s*/, '');
  switch (name) {
    case 'read_file': {
      if (output.startsWith('System reminder: File exists but has empty contents')) return 'empty';
      const media = mediaReadLabel(output);
      if (media !== undefined) return media;
      const rows = output.split('\n').filter((l) => /^\s*\d+\t/.test(l)).length;
      const window = /\[Showing lines (\d+)-(\d+) of (\d+)\./.exec(output);
      return window ? `lines ${window[1]}–${window[2]} of ${window[3]}` : plural(rows, 'line');
    }
    case 'grep': {
      if (/^No matches found/.test(output)) return 'no matches';
      const lines = nonEmptyLines(output).filter((l) => !/^\[|results were truncated/i.test(l));
      if (args.output_mode === 'content') {
        const matches = lines.filter((l) => /^\s+\d+: /.test(l)).length;
        return `${plural(matches, 'match')} in ${plural(lines.length - matches, 'file')}`.replace('matchs', 'matches');
      }
      if (args.output_mode === 'count') {
        const total = lines.reduce((sum, l) => sum + Number(/: (\d+)$/.exec(l)?.[1] ?? 0), 0);
        return `${plural(total, 'match')} in ${plural(lines.length, 'file')}`.replace('matchs', 'matches');
      }
      return plural(lines.length, 'file');
    }
    case 'glob':
      return /^No files found/.test(output) ? 'no files' : plural(nonEmptyLines(output).length, 'file');
    case 'ls':
      return /^No files found/.test(output) ? 'empty' : plural(nonEmptyLines(output).length, 'entry').replace('entrys', 'entries');
    default:
      return '';
  }
}

/** The one line a read, grep, glob or ls card shows: what it did and what came back. */
export function oneLine(name: string, args: unknown, output: string | undefined): string {
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
  if (output === undefined) return what;
  const count = resultCount(name, output, a);
  return count ? `${what} · ${count}` : what;
}
