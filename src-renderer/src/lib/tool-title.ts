// A tool call's title in the person's words, the one way every part of the window names a
// call (cards, approvals, the approval announcer): `Edit pricing.py`, `Run pytest -q` (the
// command as code), `echo (everything server)` for an MCP tool, `Subagent (general-purpose):
// …`. Tool names and arguments come from the model or a server: each is data, cut to a
// length, and becomes a text part (never markup); `PathLink`, `<code>` or plain text show it.

import { clip as cap } from './format';

export type TitlePart =
  | { kind: 'text'; text: string }
  /** A command or query, shown as code. */
  | { kind: 'code'; text: string }
  /** A file or folder of the call: `path` is the virtual path, `text` how it reads. */
  | { kind: 'path'; path: string; text: string };

export interface ToolTitle {
  parts: TitlePart[];
}

/** Longest a piece of model- or server-made text may be in a title. */
export const TITLE_PART_CHARS = 120;
const NAME_CHARS = 64;

const MCP_PREFIX = 'mcp__';
/** Ends the server's part of an MCP tool's name (SPEC §10; src-main/core/agent/permissions/tool-targets.ts). */
const MCP_SEPARATOR = '__';

/** An MCP tool's server and tool, or null for any other name. */
export function mcpToolParts(name: string): { server: string; tool: string } | null {
  if (!name.startsWith(MCP_PREFIX)) return null;
  const rest = name.slice(MCP_PREFIX.length);
  const end = rest.indexOf(MCP_SEPARATOR);
  if (end <= 0 || end + MCP_SEPARATOR.length >= rest.length) return null;
  return { server: rest.slice(0, end), tool: rest.slice(end + MCP_SEPARATOR.length) };
}

/** `some_tool-name` → `some tool name`: a made name read as words (capped). */
export function humanizeName(name: string): string {
  const words = name.replace(/[_\s-]+/g, ' ').trim();
  return cap(words === '' ? name : words, NAME_CHARS);
}

export function firstLine(text: string): string {
  const i = text.indexOf('\n');
  return i < 0 ? text : `${text.slice(0, i)} …`;
}

export function record(args: unknown): Record<string, unknown> {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** A path as the title reads it: relative to the folder (`/` is "the folder"). */
export function shownPath(path: string): string {
  return path === '/' ? 'the folder' : cap(path.replace(/^\/+/, ''), TITLE_PART_CHARS);
}

const text = (t: string): TitlePart => ({ kind: 'text', text: t });
const code = (t: string): TitlePart => ({ kind: 'code', text: cap(firstLine(t), TITLE_PART_CHARS) });
const pathPart = (p: string): TitlePart => ({ kind: 'path', path: p, text: shownPath(p) });

const PATH_VERBS: Record<string, string> = { read_file: 'Read', write_file: 'Write', edit_file: 'Edit', delete_file: 'Delete', ls: 'List' };
const SKILL_FILE = /^\/skills\/([^/]+)\/SKILL\.md$/;

/** The title of a call to `name` with `args`. */
export function toolTitle(name: string, args: unknown): ToolTitle {
  const a = record(args);
  const s = (key: string): string | undefined => (typeof a[key] === 'string' && a[key] !== '' ? (a[key] as string) : undefined);
  const where = (): TitlePart[] => {
    const p = s('path');
    return p && p !== '/' ? [text(' in '), pathPart(p)] : [];
  };
  const verb = PATH_VERBS[name];
  if (verb !== undefined) {
    const p = name === 'ls' ? (s('path') ?? '/') : (s('file_path') ?? s('path'));
    if (name === 'read_file' && p !== undefined && SKILL_FILE.test(p)) return { parts: [text('Read the skill '), { kind: 'path', path: p, text: cap(SKILL_FILE.exec(p)![1]!, NAME_CHARS) }] };
    return { parts: p === undefined ? [text(`${verb} a ${name === 'ls' ? 'folder' : 'file'}`)] : [text(`${verb} `), pathPart(p)] };
  }
  switch (name) {
    case 'execute': {
      const command = s('command');
      return { parts: command === undefined ? [text('Run a command')] : [text('Run '), code(command)] };
    }
    case 'grep': {
      const pattern = s('pattern');
      return { parts: [text('Search for '), ...(pattern ? [code(pattern)] : [text('text')]), ...where()] };
    }
    case 'glob':
      return { parts: [text('Find '), code(s('pattern') ?? '*'), ...where()] };
    case 'task': {
      const type = s('subagent_type');
      const description = s('description');
      const head = type ? `Subagent (${cap(type, NAME_CHARS)})` : 'Subagent';
      return { parts: [text(description ? `${head}: ${cap(firstLine(description), TITLE_PART_CHARS)}` : head)] };
    }
    case 'write_todos': {
      const n = Array.isArray(a.todos) ? a.todos.length : null;
      return { parts: [text(n === null ? 'Update the todo list' : `Update the todo list (${n} item${n === 1 ? '' : 's'})`)] };
    }
    case 'tool_search': {
      const query = s('query');
      return { parts: [text('Search MCP tools'), ...(query ? [text(' for '), code(query)] : [])] };
    }
  }
  // Another agent's kind of call Deepdesk has no tool for (`agent:fetch`): its own title, else its kind.
  const told = name.startsWith('agent:') ? s('title') : undefined;
  if (told !== undefined) return { parts: [text(cap(firstLine(told), TITLE_PART_CHARS))] };
  const mcp = mcpToolParts(name);
  if (mcp) return { parts: [text(`${humanizeName(mcp.tool)} (${cap(mcp.server, NAME_CHARS)} server)`)] };
  const words = humanizeName(name.replace(/^agent:/, ''));
  return { parts: [text(words.charAt(0).toUpperCase() + words.slice(1))] };
}

/** The title as one line of plain text (for announcements, tooltips and labels). */
export function toolTitleText(name: string, args: unknown): string {
  return toolTitle(name, args)
    .parts.map((p) => p.text)
    .join('');
}
