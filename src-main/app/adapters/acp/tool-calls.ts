// How a Deepdesk tool call looks in an ACP editor (SPEC §14): its kind, a short title, the
// real absolute paths it touches (ACP requires real paths; the agent's are virtual, §1) and,
// for writes and edits, the diff. A virtual path is routed as the composite routes it (the
// longest mount prefix, §1, §13): a path on a local mount lives in that mount's folder, one on
// a git mount in its clone's work tree, any other in the project folder. Paths in Deepdesk's
// own mounts (/memories/, thread files, /skills/) live nowhere on the person's disk, so they
// get no location (nor a diff).

import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { realPathOf, type EditorPaths } from '../../../core/backends/mounts/real-paths';
import { shownText } from '../../../core/text/shown-text';
import type { FileChangeSummary } from '../../../core/tools/file-change';

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  ls: 'search',
  glob: 'search',
  grep: 'search',
  tool_search: 'search',
  write_file: 'edit',
  edit_file: 'edit',
  execute: 'execute',
  write_todos: 'think',
  task: 'think',
};

export function toolKind(name: string): ToolKind {
  // The name is the model's: only our own keys count (never Object.prototype's).
  return Object.hasOwn(KINDS, name) ? KINDS[name]! : 'other';
}

type Args = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The virtual path a call names, if any. */
function pathArg(name: string, args: Args): string | undefined {
  if (name === 'read_file' || name === 'write_file' || name === 'edit_file') return str(args.file_path);
  if (name === 'ls' || name === 'glob' || name === 'grep') return str(args.path) ?? '/';
  return undefined;
}

/**
 * A title for the editor's card: one line, and whole (the person approves by it, so a long
 * command is never cut), with what would hide part of it escaped (core/text/shown-text.ts).
 */
export function toolTitle(name: string, rawArgs: unknown): string {
  const args = asArgs(rawArgs);
  const path = pathArg(name, args);
  const title = (() => {
    switch (name) {
      case 'read_file':
        return `Read ${path ?? ''}`;
      case 'write_file':
        return `Write ${path ?? ''}`;
      case 'edit_file':
        return `Edit ${path ?? ''}`;
      case 'ls':
        return `List ${path ?? '/'}`;
      case 'glob':
        return `Find ${str(args.pattern) ?? ''}`;
      case 'grep':
        return `Search for ${JSON.stringify(str(args.pattern) ?? '')}`;
      case 'execute':
        return `Run ${str(args.command) ?? ''}`;
      case 'write_todos':
        return 'Update the plan';
      case 'task':
        return `Subagent: ${str(args.description) ?? ''}`;
      default:
        return name;
    }
  })();
  return shownText(title, { singleLine: true });
}

export function toolLocations(paths: EditorPaths, name: string, rawArgs: unknown, change?: FileChangeSummary): ToolCallLocation[] {
  const path = pathArg(name, asArgs(rawArgs));
  if (path === undefined) return [];
  const real = realPathOf(paths, path);
  if (real === undefined) return [];
  const line = change?.hunks[0]?.newStart ?? (name === 'read_file' ? readLine(asArgs(rawArgs)) : undefined);
  return [{ path: real, ...(line !== undefined ? { line } : {}) }];
}

function readLine(args: Args): number | undefined {
  return typeof args.offset === 'number' && args.offset > 0 ? args.offset + 1 : undefined;
}

/**
 * The diff of a write or edit. With the change the tool recorded, its hunks (with their
 * context); before the call runs (or without one), what the arguments would change.
 */
export function toolDiff(paths: EditorPaths, name: string, rawArgs: unknown, change?: FileChangeSummary): ToolCallContent[] {
  if (name !== 'write_file' && name !== 'edit_file') return [];
  const args = asArgs(rawArgs);
  const path = str(args.file_path);
  const real = path === undefined ? undefined : realPathOf(paths, path);
  if (real === undefined) return [];
  if (change !== undefined && change.hunks.length > 0 && change.truncated !== true) {
    const oldLines = change.hunks.flatMap((h) => h.lines.filter((l) => !l.startsWith('+')).map((l) => l.slice(1)));
    const newLines = change.hunks.flatMap((h) => h.lines.filter((l) => !l.startsWith('-')).map((l) => l.slice(1)));
    return [{ type: 'diff', path: real, oldText: change.created ? null : oldLines.join('\n'), newText: newLines.join('\n') }];
  }
  if (name === 'write_file') return [{ type: 'diff', path: real, oldText: null, newText: str(args.content) ?? '' }];
  return [{ type: 'diff', path: real, oldText: str(args.old_string) ?? '', newText: str(args.new_string) ?? '' }];
}

function asArgs(raw: unknown): Args {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Args) : {};
}
