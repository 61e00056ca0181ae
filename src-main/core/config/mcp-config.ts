// MCP server entries in Claude Code's format (SPEC §10): `{"mcpServers": {"NAME": {…}}}` from
// the person's `<data-dir>/mcp.json`, a folder's `.mcp.json` or `--mcp-config FILE`.
// Reading never throws and never changes the file: a file that cannot be used is one problem
// naming it, an entry that cannot be used is one problem naming its field, and every other
// entry still loads. Editing (the person's file, from Settings and `deepdesk mcp add/rm`)
// keeps every other key and entry as written and replaces the file atomically.

import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readConfigFile } from './read-config-file';
import { z } from 'zod';
import { canonicalJson } from '../text/canonical-json';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../text/json-depth';
import { expandVars, variableNames, VARIABLE_NAME } from './expand-vars';
import { isHeldCredential } from '../process/app-secrets';
import { allProviderKeyVariables } from '../models/provider-keys';
import { packageRunnerOf, registryEnv, registryHosts } from './package-runners';
import { fieldsShape, JsonFileStore, withoutEntry } from './json-file-store';
import { DEFAULT_MCP_TIMEOUT_MS, problemLine, type ConfigProblem, type ConfigSource, type McpServerConfig } from './mcp-config-types';

const stringRecord = z.record(z.string(), z.string());

/** One entry as written (unknown fields are ignored, as Claude Code does). */
const entrySchema = z.object({
  type: z.enum(['stdio', 'http', 'sse']).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  url: z.string().min(1).optional(),
  headers: stringRecord.optional(),
  timeout: z.number().int().positive().optional(),
  sandbox: z.boolean().optional(),
  allowedDomains: z.array(z.string().min(1)).optional(),
  disabled: z.boolean().optional(),
  /**
   * Deepdesk's credentials (what app-secrets.ts classes as its own: model, sandbox-provider
   * and telemetry keys, any `*_TOKEN`, …) this entry takes, by variable name. Only these may
   * be expanded, and only into `env` or `headers`; the trust list shows them.
   */
  credentials: z.array(z.string().regex(VARIABLE_NAME, 'must be variable names')).optional(),
});

type EntryFields = z.output<typeof entrySchema>;

/** An entry whose shape is right, before `${VAR}` expansion: what trust is shown and recorded for. */
export type CheckedServerEntry =
  | { name: string; digest: string; raw: unknown; fields: EntryFields; type: 'stdio'; command: string }
  | { name: string; digest: string; raw: unknown; fields: EntryFields; type: 'http' | 'sse'; url: string };

export interface McpConfigRead {
  servers: McpServerConfig[];
  problems: ConfigProblem[];
}

/** sha256 of the entry as written (key order does not matter): what trust is recorded against. */
export function serverDigest(raw: unknown): string {
  return createHash('sha256').update(canonicalJson(raw)).digest('hex');
}

/**
 * The servers a file declares, `${VAR}` expanded from `env`. A missing file declares none
 * (for `kind: 'cli'`, a file named on the command line, that is a problem too).
 */
export function readMcpConfigFile(file: string, kind: ConfigSource['kind'], env: NodeJS.ProcessEnv, layout: McpFileLayout = 'wrapped'): McpConfigRead {
  const source: ConfigSource = { kind, file };
  const read = readServerEntries(file, kind, layout);
  const servers: McpServerConfig[] = [];
  const problems = [...read.problems];
  for (const entry of read.entries) {
    const expanded = expandServerEntry(entry, source, env);
    if ('problem' in expanded) problems.push(expanded.problem);
    else servers.push(expanded.server);
  }
  return { servers, problems };
}

/**
 * How a file holds its servers: `wrapped` under `mcpServers` (every `.mcp.json` but a
 * plugin's), or `plugin`, where they may also stand at the top level (SPEC §10, §15).
 */
export type McpFileLayout = 'wrapped' | 'plugin';

/** The entries of a file whose shape is right, and one problem per file or entry that is not. */
export function readServerEntries(file: string, kind: ConfigSource['kind'], layout: McpFileLayout = 'wrapped'): { entries: CheckedServerEntry[]; problems: ConfigProblem[] } {
  const parsed = readJsonObject(file, kind);
  if ('problem' in parsed) return { entries: [], problems: parsed.problem ? [parsed.problem] : [] };
  let servers = parsed.value.mcpServers;
  if (servers === undefined) {
    const flat = topLevelServers(parsed.value);
    if (flat.length === 0) return { entries: [], problems: [] };
    if (layout === 'plugin') servers = parsed.value;
    else {
      const example = JSON.stringify({ mcpServers: { [flat[0]!]: '…' } }).replace('"…"', '{…}');
      return { entries: [], problems: [{ file, field: 'mcpServers', message: `is missing: the servers ${flat.join(', ')} stand at the top level; put them under "mcpServers" (${example}), as Claude Code's .mcp.json has them` }] };
    }
  }
  if (!isObject(servers)) return { entries: [], problems: [{ file, field: 'mcpServers', message: 'must be an object of server entries by name' }] };
  const entries: CheckedServerEntry[] = [];
  const problems: ConfigProblem[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    const checked = checkServerEntry(file, name, raw);
    if ('problem' in checked) problems.push(checked.problem);
    else entries.push(checked.entry);
  }
  return { entries, problems };
}

/** The top-level keys that look like server entries (an object with `command`, `url` or `type`): the plugin layout. */
function topLevelServers(value: Record<string, unknown>): string[] {
  return Object.entries(value)
    .filter(([, entry]) => isObject(entry) && (typeof entry.command === 'string' || typeof entry.url === 'string' || typeof entry.type === 'string'))
    .map(([name]) => name);
}

/** The entry's shape: field types, and which kind of server it is (`type`, else `command` or `url`). */
export function checkServerEntry(file: string, name: string, raw: unknown): { entry: CheckedServerEntry } | { problem: ConfigProblem } {
  const at = `mcpServers.${name}`;
  if (name.trim() === '') return { problem: { file, field: at, message: 'a server needs a name' } };
  if (!isObject(raw)) return { problem: { file, field: at, message: 'must be an object' } };
  const checked = entrySchema.safeParse(raw);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return { problem: { file, field: `${at}${fieldPath(issue.path)}`, message: issue.message } };
  }
  const fields = checked.data;
  const digest = serverDigest(raw);
  const base = { name, digest, raw, fields };
  const type = fields.type ?? (fields.command !== undefined && fields.url !== undefined ? undefined : fields.command !== undefined ? 'stdio' : fields.url !== undefined ? 'http' : undefined);
  if (type === undefined) {
    const message =
      fields.command !== undefined
        ? 'has both "command" and "url": set "type" to "stdio", "http" or "sse" to say which'
        : 'needs "command" (a server started here) or "url" (a remote server)';
    return { problem: { file, field: at, message } };
  }
  if (type === 'stdio') {
    if (fields.command === undefined) return { problem: { file, field: `${at}.command`, message: 'is required for a stdio server' } };
    return { entry: { ...base, type, command: fields.command } };
  }
  if (fields.url === undefined) return { problem: { file, field: `${at}.url`, message: `is required for an ${type} server` } };
  return { entry: { ...base, type, url: fields.url } };
}

/**
 * The entry with `${VAR}` and `${VAR:-default}` expanded, or the first field that cannot be.
 * `asWritten`: nothing expanded (an entry that will not run, shown as its file says: the
 * person's variables have no business in it).
 */
export function expandServerEntry(
  entry: CheckedServerEntry,
  source: ConfigSource,
  env: NodeJS.ProcessEnv,
  /** `personEnv`: where a package runner's registry is named (the person's whole environment; default `env`). */
  options: { asWritten?: boolean; personEnv?: NodeJS.ProcessEnv } = {},
): { server: McpServerConfig } | { problem: ConfigProblem } {
  const at = `mcpServers.${entry.name}`;
  let problem: ConfigProblem | undefined;
  const named = new Set(entry.fields.credentials ?? []);
  /**
   * `into`: where the value goes. `line`: the command line (command, args), readable by every
   * local user in /proc/PID/cmdline; `url`: the address, which is logged and shown; `sent`: the
   * server's environment or a header. Deepdesk's credentials expand only into `sent`, and only
   * those the entry's `credentials` names (SPEC §9: what was shown is what is trusted).
   */
  const expand = (value: string, field: string, into: 'line' | 'url' | 'sent'): string => {
    if (problem !== undefined || options.asWritten) return value;
    const refused = credentialProblem(value, env, into, named);
    if (refused !== undefined) {
      problem = { file: source.file, field: `${at}.${field}`, message: refused };
      return value;
    }
    const result = expandVars(value, env);
    if (result.ok) return result.value;
    const names = result.missing.map((n) => `\${${n}}`);
    problem = { file: source.file, field: `${at}.${field}`, message: `${names.join(' and ')} ${names.length > 1 ? 'are' : 'is'} not set (write \${NAME:-default} for a default)` };
    return value;
  };
  const expandRecord = (record: Record<string, string> | undefined, field: string): Record<string, string> =>
    Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, expand(value, `${field}.${key}`, 'sent')]));
  const { fields } = entry;
  const base = { name: entry.name, source, timeoutMs: fields.timeout ?? DEFAULT_MCP_TIMEOUT_MS, disabled: fields.disabled === true, digest: entry.digest };
  let server: McpServerConfig;
  if (entry.type === 'stdio') {
    server = {
      ...base,
      type: 'stdio',
      command: expand(entry.command, 'command', 'line'),
      args: (fields.args ?? []).map((arg, i) => expand(arg, `args[${i}]`, 'line')),
      // A package runner finds the person's registry (its own env wins).
      env: { ...runnerEnv(entry.command, fields.args ?? [], options.personEnv ?? env), ...expandRecord(fields.env, 'env') },
      sandbox: fields.sandbox !== false,
      allowedDomains: [...new Set([...(fields.allowedDomains ?? []), ...runnerHosts(entry.command, fields.args ?? [], options.personEnv ?? env)])],
    };
  } else {
    const url = expand(entry.url, 'url', 'url');
    if (problem === undefined && !options.asWritten && !isWebUrl(url)) problem = { file: source.file, field: `${at}.url`, message: `is not an http(s) URL: ${url}` };
    server = { ...base, type: entry.type, url, headers: expandRecord(fields.headers, 'headers') };
  }
  return problem !== undefined ? { problem } : { server };
}

/**
 * Why `value` may not expand one of Deepdesk's credentials (app-secrets.ts isHeldCredential:
 * the keys it holds, by the tables that name them, and any variable carrying one), or
 * undefined. Never on a command line or in a URL, whatever the entry says; into `env` and
 * `headers` only when named in its `credentials`. A variable the person set for a server
 * (`${CONTEXT7_API_KEY}`) is theirs to pass: the trust list names it.
 */
function credentialProblem(value: string, env: NodeJS.ProcessEnv, into: 'line' | 'url' | 'sent', named: ReadonlySet<string>): string | undefined {
  const providerKeys = allProviderKeyVariables();
  for (const name of variableNames(value)) {
    if (!isHeldCredential(name, env[name] ?? '', providerKeys)) continue;
    const reference = `\${${name}}`;
    if (into === 'line') return `${reference} is a credential and would be on the command line, where every local user can read it (/proc/PID/cmdline); pass it through "env" instead (and name it in "credentials")`;
    if (into === 'url') return `${reference} is a credential and would be in the URL, which is logged and shown; send it in "headers" instead (and name it in "credentials")`;
    if (!named.has(name)) return `${reference} is one of Deepdesk's credentials: an entry gets it only when it names it in "credentials" (["${name}"]), which the trust list shows`;
  }
  return undefined;
}

/** The person's variables an entry expands (SPEC §9: the trust list names each), from the fields expandServerEntry expands. */
export function entryVariables(entry: CheckedServerEntry): string[] {
  const { fields } = entry;
  const texts = entry.type === 'stdio' ? [entry.command, ...(fields.args ?? []), ...Object.values(fields.env ?? {})] : [entry.url, ...Object.values(fields.headers ?? {})];
  return [...new Set(texts.flatMap(variableNames))].sort();
}

/** Lists merged by server name: a later list's entry replaces an earlier one of the same name. */
export function mergeServers(...lists: ReadonlyArray<readonly McpServerConfig[]>): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const list of lists) {
    for (const server of list) {
      byName.delete(server.name);
      byName.set(server.name, server);
    }
  }
  return [...byName.values()];
}

// -------------------------------------------------------------------- editing a file

export interface EditOptions {
  /** Permission bits of a new file (default 0600: entries carry tokens); an existing file keeps its own. */
  mode?: number;
}

/**
 * What is wrong with an entry about to be written by Settings or `deepdesk mcp add`, or
 * undefined: its name (letters, digits, `.`, `-`, `_`), its shape, and a URL written out in
 * full (one holding no `${VAR}`) that is not http(s).
 */
export function entryProblem(file: string, name: string, rawEntry: unknown): ConfigProblem | undefined {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return { file, field: 'mcpServers', message: 'a server name may use letters, digits, ., - and _' };
  const checked = checkServerEntry(file, name, rawEntry);
  if ('problem' in checked) return checked.problem;
  const { entry } = checked;
  if (entry.type !== 'stdio' && !entry.url.includes('${') && !isWebUrl(entry.url)) return { file, field: `mcpServers.${name}.url`, message: `is not an http(s) URL: ${entry.url}` };
  return undefined;
}

/** Adds or replaces the entry `name` (checked first: a malformed entry is refused, nothing written). */
export function writeServerEntry(file: string, name: string, rawEntry: Record<string, unknown>, options: EditOptions = {}): void {
  const problem = entryProblem(file, name, rawEntry);
  if (problem !== undefined) throw new Error(`not saved: ${problemLine(problem)}`);
  editServers(file, options, (servers) => ({ ...servers, [name]: rawEntry }));
}

/** Removes the entry `name`; false when the file has no such entry (nothing written). */
export function removeServerEntry(file: string, name: string, options: EditOptions = {}): boolean {
  let found = false;
  editServers(file, options, (servers) => {
    found = Object.hasOwn(servers, name);
    return withoutEntry(servers, name);
  });
  return found;
}

/** Sets (or clears) the entry's `"disabled": true`; throws when the file has no such entry. */
export function setServerDisabled(file: string, name: string, disabled: boolean, options: EditOptions = {}): void {
  editServers(file, options, (servers) => {
    const entry = servers[name];
    if (!Object.hasOwn(servers, name) || !isObject(entry)) throw new Error(`no MCP server named '${name}' in ${file}`);
    const next: Record<string, unknown> = { ...entry };
    if (disabled) next.disabled = true;
    else delete next.disabled;
    return { ...servers, [name]: next };
  });
}

const editShape = fieldsShape({ mcpServers: z.record(z.string(), z.unknown()) });

/**
 * Applies `change` to the file's `mcpServers` under the JSON file store's lock (other keys and
 * entries are written back as they were). A file that is not valid JSON is refused rather than
 * moved aside: it is the person's hand-written file.
 */
function editServers(file: string, options: EditOptions, change: (servers: Record<string, unknown>) => Record<string, unknown>): void {
  const existing = readJsonObject(file, 'user');
  if ('problem' in existing && existing.problem) throw new Error(`cannot edit ${file}: ${existing.problem.message}; fix or remove it first`);
  if ('value' in existing && existing.value.mcpServers !== undefined && !isObject(existing.value.mcpServers)) {
    throw new Error(`cannot edit ${file}: "mcpServers" is not an object; fix it first`);
  }
  const store = new JsonFileStore({ path: file, shape: editShape, mode: options.mode ?? existingMode(file) ?? 0o600 });
  try {
    store.update((current) => {
      const servers = current.mcpServers ?? {};
      const next = change(servers);
      return next === servers ? current : { ...current, mcpServers: next };
    });
  } finally {
    store.close();
  }
}

// -------------------------------------------------------------------- small helpers

export type JsonObjectRead = { value: Record<string, unknown> } | { problem: ConfigProblem | undefined };

/** A config file's top-level object, or the one problem with the file (none when a person's or folder's file is missing). */
export function readJsonObject(file: string, kind: ConfigSource['kind'], example = '{"mcpServers": {…}}'): JsonObjectRead {
  const read = readConfigFile(file);
  if (!read.ok) return { problem: read.missing && kind !== 'cli' ? undefined : { file, message: read.message } };
  const text = read.bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { problem: { file, message: `is not valid JSON (${err instanceof Error ? err.message : String(err)})` } };
  }
  if (nestsDeeperThan(value)) return { problem: { file, message: `is nested deeper than ${MAX_JSON_DEPTH} levels` } };
  if (!isObject(value)) return { problem: { file, message: `must be a JSON object like ${example}` } };
  return { value };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isWebUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
}

function existingMode(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
}

/** A package runner's registry hosts (SPEC §10), which its sandbox may reach. */
export function runnerHosts(command: string, args: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const runner = packageRunnerOf(command, args);
  return runner === undefined ? [] : registryHosts(runner, env);
}

/** The registry a package runner is told, as the person's configuration names it. */
function runnerEnv(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const runner = packageRunnerOf(command, args);
  return runner === undefined ? {} : registryEnv(runner, env);
}
