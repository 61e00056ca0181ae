// Permission rules in words, so the person sees what "always allow" will allow.

import type { z } from 'zod';
import type { permissionRuleSchema } from '../../../src-main/app/contract';

export type PermissionRule = z.infer<typeof permissionRuleSchema>;

const DECISION_WORDS = { allow: 'Allow', ask: 'Ask before', deny: 'Deny' } as const;

export function describeRule(rule: PermissionRule): string {
  const what = rule.tools?.length
    ? rule.tools.join(', ')
    : rule.operations?.length
      ? `${rule.operations.join(', ')} operations`
      : 'every tool';
  const parts = [`${DECISION_WORDS[rule.decision]} ${what}`];
  if (rule.paths?.length) parts.push(`on ${rule.paths.join(', ')}`);
  if (rule.commands?.length) parts.push(`for commands matching ${rule.commands.map((c) => `\`${c}\``).join(', ')}`);
  return parts.join(' ');
}
