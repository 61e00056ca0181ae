// The host's zod checks of the session flags (THE table, contract/session-flag-table.ts): what
// a command sends with its request, the flags that win over Settings, the Agent Protocol's
// `configurable`. Derived from the table's rows; apart from it so that a command, which only
// parses its flags, builds none of these schemas when it starts.

import { z } from 'zod';
import { isSandboxProviderName, SANDBOX_PROVIDER_NAMES } from '../../core/process/sandbox-provider-table';
import { OVER_SETTINGS_KEYS, SANDBOX_ID, SESSION_FLAGS, type GivenSessionFlags, type KindValue, type OverSettingsFlags, type SandboxRequest, type SessionFlagKind, type SessionFlagRowOf } from './session-flags';

export const sandboxRequestSchema = z.object({
  provider: z.string().refine(isSandboxProviderName, { message: `must be ${SANDBOX_PROVIDER_NAMES.join(', ')}` }).optional(),
  id: z.string().regex(SANDBOX_ID).optional(),
}) as unknown as z.ZodType<SandboxRequest>;

const KIND_SCHEMAS = {
  text: z.string(),
  count: z.number().int().positive(),
  texts: z.array(z.string()),
  files: z.array(z.string()),
  switch: z.boolean(),
  'sandbox-provider': sandboxRequestSchema,
  'sandbox-id': sandboxRequestSchema,
} satisfies { [K in SessionFlagKind]: z.ZodType<KindValue[K]> };

/** The host's check of the flags a command sends (each optional: a command sends what it was given). */
export const sessionFlagsSchema = z.object(
  Object.fromEntries(SESSION_FLAGS.map((row) => [row.key, KIND_SCHEMAS[row.kind].optional()])) as unknown as {
    [R in SessionFlagRowOf as R['key']]: z.ZodOptional<z.ZodType<KindValue[R['kind']]>>;
  },
);

/** The host's check of the flags that win over Settings (a window's `serve` flags). */
export const overSettingsFlagsSchema = sessionFlagsSchema.pick(Object.fromEntries(OVER_SETTINGS_KEYS.map((key) => [key, true])) as { [K in keyof OverSettingsFlags]-?: true });

/** What a command sends the host with its request: the flags it was given, its working folder and its environment. */
export const sessionFlagsRequest = sessionFlagsSchema.extend({
  /** The command's working folder. */
  cwd: z.string().min(1),
  /** The command's environment: keys, base URLs, what commands and hooks inherit. */
  env: z.record(z.string(), z.string()),
});

/**
 * The flags an Agent Protocol run names in `config.configurable` (rows marked `configurable`),
 * checked; a bad one is thrown as `bad(message)` (the protocol's 422).
 */
export function configurableFlags(configurable: Readonly<Record<string, unknown>>, bad: (message: string) => Error): GivenSessionFlags {
  const out: Record<string, unknown> = {};
  for (const row of SESSION_FLAGS) {
    if (!('configurable' in row) || !row.configurable) continue;
    const value = configurable[row.key];
    if (value === undefined || value === null) continue;
    const checked = KIND_SCHEMAS[row.kind].safeParse(value);
    if (!checked.success || value === '') throw bad(`config.configurable.${row.key} must be ${describeKind(row.kind)}.`);
    out[row.key] = checked.data;
  }
  return out as GivenSessionFlags;
}

function describeKind(kind: SessionFlagKind): string {
  return kind === 'count' ? 'a positive whole number' : kind === 'switch' ? 'true or false' : kind === 'text' ? 'a string' : 'a list of strings';
}
