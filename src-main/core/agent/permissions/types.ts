import type { ApprovalWhy } from './reason';

export type Decision = 'allow' | 'ask' | 'deny';
export type Operation = 'read' | 'write' | 'edit' | 'delete' | 'execute';

/**
 * A permission rule. It matches a tool call when every field it has matches (an empty
 * list matches nothing); the first matching rule of an ordered list decides.
 */
export interface PermissionRule {
  /** Tool names; `'*'` is any tool. */
  tools?: string[];
  operations?: Operation[];
  /** Globs on virtual paths (SPEC §3 glob semantics, relative to `/`); any target path may match. */
  paths?: string[];
  /** Command patterns (see command-patterns.ts); only execute calls can match. */
  commands?: string[];
  decision: Decision;
  id?: string;
  description?: string;
}

export interface PermissionRequest {
  tool: string;
  args: Record<string, unknown>;
}

export interface PermissionVerdict {
  decision: Decision;
  /** Why, in words a person understands: `reasonWords(why)`. */
  reason: string;
  /** Why, as data (the window says it from this). */
  why: ApprovalWhy;
  /** The rule that decided, when one did. */
  rule?: PermissionRule;
}
