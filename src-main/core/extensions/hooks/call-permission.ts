// A PreToolUse hook's `allow` or `ask`, handed from the hooks middleware to the approval
// middleware with the call object itself (the chain passes it on unchanged): approval
// combines it with the rules and the mode, where a hook's allow never beats a deny rule, a
// protected path, plan mode or `sandbox: false`.

import type { ToolCall } from '../../models/types';
import type { HookRef } from './types';

export interface HookPermission {
  decision: 'allow' | 'ask';
  reason: string;
  hook: HookRef;
}

const permissions = new WeakMap<ToolCall, HookPermission>();

export function withHookPermission(call: ToolCall, permission: HookPermission): ToolCall {
  const marked = { ...call };
  permissions.set(marked, permission);
  return marked;
}

export function hookPermission(call: ToolCall): HookPermission | undefined {
  return permissions.get(call);
}
