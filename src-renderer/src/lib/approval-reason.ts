// Why a call asks, as an approval card says it under its title. The rule engine's reason
// names its subject first (`` `edit_file` on /pricing.py is not covered by an allow rule ``,
// `` `pytest -q` needs approval (shell commands ask by default) ``): right on a terminal,
// a repetition under a title that already says `Edit pricing.py`. The subject is dropped
// when it is only the call itself (compared with the arguments, never parsed out of the
// text: a command may hold backticks); a subject that says more (one part of a longer
// command, a linked path) stays, quoted as the engine wrote it. Plain text always.

import { mcpToolParts } from './tool-title';

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What follows a dropped subject, as a sentence of its own. */
function predicate(rest: string, mcp: boolean): string {
  if (rest === 'is not covered by an allow rule') return 'No allow rule covers it.';
  if (/^is an MCP server's tool, and no allow rule covers it$/.test(rest) || (mcp && rest === 'is not covered by an allow rule'))
    return 'Tools of MCP servers ask unless an allow rule covers them.';
  const asked = /^needs approval \((.*)\)$/s.exec(rest);
  if (asked) return /^rule\b/.test(asked[1]!) ? `${capitalize(asked[1]!)} asks for approval.` : `${capitalize(asked[1]!)}.`;
  const refused = /^is denied \((.*)\)$/s.exec(rest);
  if (refused) return `Refused: ${refused[1]!}.`;
  return capitalize(rest.replace(/^:\s*/, '').replace(/^is /, 'It is '));
}

/** The reason `reason` for a call to `toolName` with `args`, without what the title says already. */
export function approvalReasonText(toolName: string, args: Record<string, unknown>, reason: string): string {
  const subjects: string[] = [];
  const path = typeof args.file_path === 'string' ? args.file_path : typeof args.path === 'string' ? args.path : undefined;
  if (path !== undefined) subjects.push(`\`${toolName}\` on ${path}`);
  subjects.push(`\`${toolName}\``);
  if (toolName === 'execute' && typeof args.command === 'string' && args.command.trim() !== '') subjects.push(`\`${args.command.trim()}\``);
  for (const subject of subjects) {
    if (!reason.startsWith(subject)) continue;
    const rest = reason.slice(subject.length);
    if (!/^(?: |:)/.test(rest)) continue;
    return predicate(rest.trimStart(), mcpToolParts(toolName) !== null);
  }
  return capitalize(reason);
}
