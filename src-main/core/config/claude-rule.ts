// One permission rule in Claude Code's syntax (SPEC §11): `Bash`, `Bash(npm test:*)`,
// `Bash(git push *)`, `Read(./src/**)`, `Edit(src/**)`, `Write(*.env)`, `mcp__server`,
// `mcp__server__tool`, `mcp__server__*`. Hooks' `if` fields and the `permissions` of Claude
// Code's settings files are written in it. Matched against a call as Claude Code describes
// it (its tool name and input, real absolute paths).

import { homedir } from 'node:os';
import { isAbsolute, relative, resolve } from 'node:path';
import { isPathInside } from '../fs/path-inside';

export interface ClaudeRule {
  /** As written, for messages. */
  text: string;
  tool: string;
  /** What is inside the parentheses; absent: every call of the tool. */
  specifier?: string;
}

/** Claude Code's rule families: an Edit rule covers every tool that changes files, a Read rule every tool that reads them. */
const FAMILIES: Readonly<Record<string, readonly string[]>> = {
  Edit: ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'],
  Read: ['Read', 'Grep', 'Glob', 'LS'],
};

export function parseClaudeRule(text: string): ClaudeRule | { problem: string } {
  const trimmed = text.trim();
  const match = /^([A-Za-z][A-Za-z0-9_-]*(?:__\*)?)(?:\((.*)\))?$/s.exec(trimmed);
  if (match === null) return { problem: `'${text}' is not a rule (Tool or Tool(specifier), e.g. Bash(npm test:*))` };
  const specifier = match[2]?.trim();
  return { text: trimmed, tool: match[1]!, ...(specifier !== undefined && specifier !== '' && specifier !== '*' ? { specifier } : {}) };
}

export interface ClaudeCallView {
  tool_name: string;
  tool_input: Record<string, unknown>;
}

/** Whether the rule covers this call; `folder` is where relative path patterns start. */
export function matchesClaudeRule(rule: ClaudeRule, call: ClaudeCallView, folder: string): boolean {
  if (!toolMatches(rule.tool, call.tool_name)) return false;
  if (rule.specifier === undefined) return true;
  if (call.tool_name === 'Bash') return commandMatches(rule.specifier, typeof call.tool_input.command === 'string' ? call.tool_input.command : '');
  const path = typeof call.tool_input.file_path === 'string' ? call.tool_input.file_path : typeof call.tool_input.path === 'string' ? call.tool_input.path : undefined;
  if (path !== undefined && (FAMILIES.Edit!.includes(call.tool_name) || FAMILIES.Read!.includes(call.tool_name))) return pathMatches(rule.specifier, path, folder);
  return false;
}

function toolMatches(ruleTool: string, tool: string): boolean {
  if (ruleTool === tool) return true;
  if (FAMILIES[ruleTool]?.includes(tool)) return true;
  // `mcp__server` and `mcp__server__*` cover every tool of that server.
  if (ruleTool.startsWith('mcp__') && tool.startsWith('mcp__')) {
    const server = ruleTool.replace(/__\*$/, '');
    return server.split('__').length === 2 && tool.startsWith(`${server}__`);
  }
  return false;
}

/** `npm test:*` is a prefix (at a word's end); other patterns match the whole command, `*` being any text. */
export function commandMatches(specifier: string, command: string): boolean {
  const text = command.trim();
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2).trim();
    return text === prefix || text.startsWith(`${prefix} `) || text.startsWith(`${prefix}\t`);
  }
  if (!specifier.includes('*')) return text === specifier.trim();
  return wildcard(specifier.trim(), '[\\s\\S]*').test(text);
}

/**
 * gitignore-style: `//abs/path` is absolute, `~/x` in the home folder, `/x`, `./x` and `x/y`
 * from the folder, and a pattern without a `/` matches a name at any depth (`*.env`).
 */
export function pathMatches(specifier: string, path: string, folder: string): boolean {
  let pattern = specifier.trim();
  let base = folder;
  if (pattern.startsWith('//')) {
    base = '/';
    pattern = pattern.slice(2);
  } else if (pattern.startsWith('~/')) {
    base = homedir();
    pattern = pattern.slice(2);
  } else if (pattern.startsWith('./')) pattern = pattern.slice(2);
  else if (pattern.startsWith('/')) pattern = pattern.slice(1);
  const absolute = isAbsolute(path) ? path : resolve(folder, path);
  const rel = relative(base, absolute);
  if (!isPathInside(base, absolute)) return false;
  // `src/**` covers the folder `src` itself too.
  if (pattern.endsWith('/**')) pattern = pattern.slice(0, -3);
  const anywhere = !pattern.includes('/');
  const regex = wildcard(anywhere ? `**/${pattern}` : pattern, '[^/]*');
  // A pattern naming a folder covers what is inside it.
  const parts = rel.split('/');
  for (let n = parts.length; n >= 1; n--) if (regex.test(parts.slice(0, n).join('/'))) return true;
  return false;
}

/** `**` any folders, `*` (as `star`), `?` one character; everything else literal. */
function wildcard(pattern: string, star: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      i++;
      if (pattern[i + 1] === '/') {
        i++;
        out += '(?:.*/)?';
      } else out += '.*';
    } else if (c === '*') out += star;
    else if (c === '?') out += '.';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}
