// What reads THE table of session flags (app/contract/session-flag-table.ts): the CLI's parser
// options and help, each value checked and shaped once, the flags over Settings. The host's zod
// checks of them are in session-flag-schemas.ts: a command's start builds none.

import { resolve } from 'node:path';
import { SANDBOX_PROVIDER_NAMES, isSandboxProviderName, type SandboxProviderName } from '../../core/process/sandbox-provider-table';
import { checkedMemoriesStore, checkedModelSpec, checkedMountFlags } from './flag-checks';
import { ContractError } from '../contract/contract-error';
import { SESSION_FLAGS, type HelpSection, type SessionFlagKind, type SessionFlagRowOf } from '../contract/session-flag-table';

export { SESSION_FLAGS, type SessionFlagKind, type SessionFlagRowOf };

/** `--sandbox PROVIDER [--sandbox-id ID]` (SPEC §18): a provider, a sandbox to reattach, or both. */
export interface SandboxRequest {
  /** Absent with `--sandbox-id` alone: the sandbox's record names it. */
  provider?: SandboxProviderName;
  id?: string;
}

export interface KindValue {
  text: string;
  count: number;
  texts: string[];
  files: string[];
  switch: boolean;
  'sandbox-provider': SandboxRequest;
  'sandbox-id': SandboxRequest;
}

/** The session flags as a command sends them: only the ones given, each under its row's key. */
export type GivenSessionFlags = { -readonly [R in SessionFlagRowOf as R['key']]?: KindValue[R['kind']] };

/** The flags that win over Settings for one session (model, sizes, the memories store): their keys. */
type OverSettingsRow = Extract<SessionFlagRowOf, { overSettings: true }>;
export type OverSettingsFlags = { [R in OverSettingsRow as R['key']]?: KindValue[R['kind']] };

/** A sandbox's id as `--sandbox-id` takes it. */
export const SANDBOX_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/** The keys of the flags that win over Settings. */
export const OVER_SETTINGS_KEYS = SESSION_FLAGS.filter((row) => 'overSettings' in row && row.overSettings).map((row) => row.key);

/** The rows a command takes. */
export function sessionFlagsOf(command: string): SessionFlagRowOf[] {
  return SESSION_FLAGS.filter((row) => takes(row, command));
}

function takes(row: SessionFlagRowOf, command: string): boolean {
  return (row.commands as readonly string[]).includes(command);
}

type ParseOption = { type: 'string'; multiple?: true } | { type: 'boolean' };

/** node:util parseArgs options for the session flags of a command. */
export function sessionFlagOptions(command: string): Record<string, ParseOption> {
  return Object.fromEntries(
    sessionFlagsOf(command).map((row): [string, ParseOption] => [
      row.flag,
      row.kind === 'switch' ? { type: 'boolean' } : row.kind === 'texts' || row.kind === 'files' ? { type: 'string', multiple: true } : { type: 'string' },
    ]),
  );
}

/**
 * A command's parsed values as session flags: only those given, each checked (a bad value is a
 * ContractError `bad_request` naming the flag, which the CLI shows as bad usage). Relative files
 * and folders are taken from `cwd`.
 */
export function readSessionFlags(command: string, values: Readonly<Record<string, unknown>>, cwd: string): GivenSessionFlags {
  const out: Record<string, unknown> = {};
  for (const row of sessionFlagsOf(command)) {
    const raw = values[row.flag];
    if (raw === undefined || raw === false) continue;
    const value = readValue(row, raw, cwd);
    out[row.key] = row.kind === 'sandbox-provider' || row.kind === 'sandbox-id' ? { ...(out[row.key] as SandboxRequest | undefined), ...(value as SandboxRequest) } : value;
  }
  return out as GivenSessionFlags;
}

function readValue(row: SessionFlagRowOf, raw: unknown, cwd: string): unknown {
  const bad = (problem: string): never => {
    throw new ContractError(`--${row.flag} ${problem}`, 'bad_request');
  };
  switch (row.kind) {
    case 'switch':
      return raw === true;
    case 'count': {
      const n = Number(raw);
      return Number.isInteger(n) && n > 0 ? n : bad(`must be a positive whole number (got '${String(raw)}')`);
    }
    case 'text':
      return row.key === 'memoriesStore' ? checkedMemoriesStore(String(raw)) : row.key === 'model' || (row.key === 'reviewerChoice' && !['thread', 'off'].includes(String(raw))) ? checkedModelSpec(String(raw)) : String(raw);
    case 'texts': {
      const texts = (raw as unknown[]).map(String);
      if (row.key === 'mounts') checkedMountFlags(texts, cwd);
      return texts;
    }
    case 'files':
      return (raw as unknown[]).map((file) => resolve(cwd, String(file)));
    case 'sandbox-provider':
      return isSandboxProviderName(String(raw)) ? { provider: String(raw) } : bad(`must be ${SANDBOX_PROVIDER_NAMES.join(', ')} (got '${String(raw)}')`);
    case 'sandbox-id':
      return SANDBOX_ID.test(String(raw)) ? { id: String(raw) } : bad(`: '${String(raw)}' is not a sandbox id`);
  }
}

/** The flags that win over Settings for this session, out of a request that may carry more. */
export function overSettingsFlags(flags: object): OverSettingsFlags {
  const keys = new Set<string>(OVER_SETTINGS_KEYS);
  return Object.fromEntries(Object.entries(flags).filter(([key, value]) => keys.has(key) && value !== undefined)) as OverSettingsFlags;
}

/** `--help`'s lines for the session flags of a section (and, for 'command', of one command). */
export function sessionFlagHelp(section: HelpSection, command?: string): string {
  return SESSION_FLAGS.filter((row) => row.section === section && (command === undefined || takes(row, command)))
    .map((row) => helpLine(row, command))
    .join('\n');
}

function helpLine(row: SessionFlagRowOf, command: string | undefined): string {
  const head = `--${row.flag}${'value' in row ? ` ${row.value}` : ''}`;
  const own = command !== undefined && 'helpFor' in row ? (row.helpFor as Record<string, string>)[command] : undefined;
  const [first, ...rest] = helpColumn(own ?? row.help);
  const more = rest.map((line) => `\n${' '.repeat(24)}${line}`).join('');
  return head.length <= 22 ? `  ${head.padEnd(20)}  ${first}${more}` : `  ${head}\n${' '.repeat(24)}${first}${more}`;
}

/** A description in `--help`'s second column (24 spaces in, lines up to 92 wide), from one paragraph (`Settings › Sandboxes` kept on one line). */
export function helpColumn(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s*\n\s*/g, ' ').split(/(?<!›) (?!›)/)) {
    if (line !== '' && 24 + line.length + 1 + word.length > 92) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}
