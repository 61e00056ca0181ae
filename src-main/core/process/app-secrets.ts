// Deepdesk's own credentials (SPEC §7), the one rule: they reach no process Deepdesk starts
// other than the agent host (Deepdesk itself). What is withheld is decided by class, by name
// and by value:
// - names: every credential-shaped name — `*_API_KEY`, `*_TOKEN` (provider bearer and OAuth
//   tokens), `*_SECRET`, `*_PASSWORD`, `*_HEADERS` (OTEL_EXPORTER_OTLP_HEADERS and the
//   per-signal `OTEL_EXPORTER_OTLP_*_HEADERS` carry the collector's key) — which covers every
//   provider's key variable of core/models/provider-keys.ts, LangSmith's and the sandbox
//   providers' keys; plus the names that are credentials without looking like one (the
//   memories store's password however PostgreSQL's client would find it: PGPASSWORD, or a
//   file PGPASSFILE or PGSERVICEFILE names — ~/.pgpass and ~/.pg_service.conf are hidden by
//   the sandbox instead), OpenAI's account ids, every sandbox provider's key variables as THE
//   provider table lists them (sandbox-provider-table.ts: a Modal token id, a Deno
//   organization), and Deepdesk's internal variables;
// - values: a PostgreSQL URL carrying a password in any variable, and any variable carrying
//   a key Deepdesk uses whatever its name (a key from Settings or a flag: withholdFromCommands).

import { SANDBOX_KEY_VARIABLES } from './sandbox-provider-table';

/** Credentials whose names do not follow the class patterns, and every sandbox provider's keys. */
export const APP_SECRET_VARS: ReadonlySet<string> = new Set(['OPENAI_ORG_ID', 'OPENAI_ORGANIZATION', 'OPENAI_PROJECT_ID', 'PGPASSWORD', 'PGPASSFILE', 'PGSERVICEFILE', ...SANDBOX_KEY_VARIABLES]);

/** The class: keys, tokens, secrets, passwords and headers by name, and Deepdesk's own variables. */
const APP_SECRET_PATTERNS: readonly RegExp[] = [/_API_?KEY$/i, /_TOKEN$/i, /_SECRET$/i, /_PASSWORD$/i, /_HEADERS$/i, /^_*DEEPDESK_/i];

/** A PostgreSQL URL with a password in it (`postgres://user:pw@host`, `…?password=pw`): the memories store's, whatever the variable. */
const POSTGRES_URL_WITH_PASSWORD = /postgres(?:ql)?:\/\/(?:[^\s/@:]*:[^\s/@]+@|[^\s]*[?&]password=)/i;

/** Values shorter than this are not matched (they would strip unrelated variables). */
export const MIN_WITHHELD_LENGTH = 8;
const withheldValues = new Set<string>();

/** Registers a secret the app uses (an API key from settings, a flag or the environment). */
export function withholdFromCommands(value: string | undefined): void {
  const trimmed = value?.trim();
  if (trimmed !== undefined && trimmed.length >= MIN_WITHHELD_LENGTH) withheldValues.add(trimmed);
}

/** Whether a variable of Deepdesk's environment is one of its own credentials. */
export function isAppSecret(key: string, value: string): boolean {
  if (APP_SECRET_VARS.has(key.toUpperCase()) || APP_SECRET_PATTERNS.some((p) => p.test(key))) return true;
  return holdsAppValue(value);
}

/** The services' keys Deepdesk reads by name (LangSmith's, the OTLP collector's headers) and its own variables. */
const SERVICE_SECRET_NAMES: readonly RegExp[] = [/^LANG(SMITH|CHAIN)_API_KEY$/i, /^OTEL_EXPORTER_OTLP_(\w+_)?HEADERS$/i, /^_*DEEPDESK_/i];

/**
 * Whether a variable is a credential Deepdesk itself holds — by the tables that name them
 * (`providerKeys`: the providers' key variables; the sandbox providers' and the store's here;
 * the services' it reads) or by carrying a key it uses — as opposed to one that merely looks
 * like a key, which the person set for their own programs and may pass to them.
 */
export function isHeldCredential(key: string, value: string, providerKeys: readonly string[]): boolean {
  const name = key.toUpperCase();
  if (APP_SECRET_VARS.has(name) || providerKeys.includes(name) || SERVICE_SECRET_NAMES.some((p) => p.test(key))) return true;
  return holdsAppValue(value);
}

function holdsAppValue(value: string): boolean {
  if (POSTGRES_URL_WITH_PASSWORD.test(value)) return true;
  for (const secret of withheldValues) if (value.includes(secret)) return true;
  return false;
}

/** The keys Deepdesk uses: the first thing the secret scrubber takes out (scrub-secrets.ts). */
export function heldValues(): ReadonlySet<string> {
  return withheldValues;
}
