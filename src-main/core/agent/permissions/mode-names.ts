// The approval modes' names (SPEC §7), apart from what they do (modes.ts): what a command
// checks its --mode flag against, without loading the rules.

export const APPROVAL_MODES = ['ask', 'edit', 'auto', 'plan'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
export const DEFAULT_MODE: ApprovalMode = 'ask';

export function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === 'string' && (APPROVAL_MODES as readonly string[]).includes(value);
}
