// Why a call asks, as an approval card says it under its title, from the reason core gives
// as data (`why`, see src-main/core/agent/permissions/reason.ts). The rule engine's words name
// their subject first (`` `edit_file` on /pricing.py is not covered by an allow rule ``): right
// on a terminal, a repetition under a title that already says `Edit pricing.py`. The subject
// is dropped when it is only the call itself (compared with the arguments); a subject that
// says more (one part of a longer command, a linked path) stays, in the engine's words.
// Plain text always. A reason without its data (sent by an older host) is shown as written.

import { reasonWords, ruleWords, type ApprovalWhyDto } from '../../../src-main/app/contract';
import { mcpToolParts } from './tool-title';
import { capitalized } from './format';

type Subject = Extract<ApprovalWhyDto, { subject: unknown }>['subject'];

/** Whether the reason's subject is only the call the card's title names. */
function isTheCall(subject: Subject | undefined, toolName: string, args: Record<string, unknown>): boolean {
  if (subject === undefined) return false;
  if ('command' in subject) return toolName === 'execute' && typeof args.command === 'string' && args.command.trim() !== '' && subject.command === args.command.trim();
  if (subject.tool !== toolName) return false;
  if (subject.paths.length === 0) return true;
  const path = typeof args.file_path === 'string' ? args.file_path : typeof args.path === 'string' ? args.path : undefined;
  return subject.paths.length === 1 && subject.paths[0] === path;
}

/** `` `/ci.yml` is `` before what a sensitive write is, unless the card's title names that file already. */
function sensitivePath(path: string, args: Record<string, unknown>): string {
  return args.file_path === path || args.path === path ? 'This is ' : `${path} is `;
}

/** The reason for a call to `toolName` with `args`, without what the title says already. */
export function approvalReasonText(toolName: string, args: Record<string, unknown>, reason: string, why?: ApprovalWhyDto): string {
  if (why === undefined) return capitalized(reason);
  // Asked of the person only when the reviewer could not answer: no "the reviewer is asked" here.
  if (why.kind === 'sensitive-write') return `${sensitivePath(why.path, args)}${why.what}: it later runs or steers a program outside the sandbox.`;
  const subject = 'subject' in why ? why.subject : undefined;
  if (!isTheCall(subject, toolName, args)) return capitalized(reasonWords(why));
  switch (why.kind) {
    case 'not-allowed':
      return mcpToolParts(toolName) !== null ? 'Tools of MCP servers ask unless an allow rule covers them.' : 'No allow rule covers it.';
    case 'mcp-tool-not-allowed':
      return 'Tools of MCP servers ask unless an allow rule covers them.';
    case 'rule': {
      const rule = capitalized(ruleWords(why.rule));
      if (why.decision === 'deny') return `Refused: ${ruleWords(why.rule)}.`;
      if (why.decision === 'ask') return 'description' in why.rule ? `${rule}.` : `${rule} asks for approval.`;
      return `It is allowed (${ruleWords(why.rule)})`;
    }
    case 'escalation':
      return `${capitalized(why.escalation)}, which an allow rule does not cover`;
    case 'names-protected-path':
      return `Names ${why.path}, and ${why.protects}`;
    default:
      return capitalized(reasonWords(why));
  }
}
