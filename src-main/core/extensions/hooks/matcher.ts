// Which PreToolUse/PostToolUse hooks a tool call runs (SPEC §11): the matcher is a regular
// expression on the tool's name, matched whole as Claude Code does; Claude's names for the
// base tools match Deepdesk's too, so existing hook files work unchanged.

import { CLAUDE_CODE_NAMES } from '../../tools/claude-code-names';

const compiled = new Map<string, RegExp>();

export function matchesTool(matcher: string | undefined, toolName: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  let regex = compiled.get(matcher);
  if (regex === undefined) {
    regex = new RegExp(`^(?:${matcher})$`);
    compiled.set(matcher, regex);
  }
  const alias = Object.hasOwn(CLAUDE_CODE_NAMES, toolName) ? CLAUDE_CODE_NAMES[toolName] : undefined;
  return regex.test(toolName) || (alias !== undefined && regex.test(alias));
}
