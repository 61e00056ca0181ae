// A sandbox provider (SPEC §18): a place in someone's cloud where a thread's workspace lives
// and its commands run. One interface, one small implementation per provider, each over the
// provider's official SDK (daytona/, e2b/, modal/, deno/). The file tools run over it as Deep
// Agents' BaseSandbox does (core/backends/provider/): POSIX tools in the sandbox, file
// contents only through `upload`/`download`.

import { PROVIDER_LABELS, type SandboxCapabilities, type SandboxProviderName } from '../process/sandbox-provider-table';
import { visibleLine } from '../text/visible-line';

// The names, labels, variables and capabilities are THE table's (core/process/sandbox-provider-table.ts).
export { isSandboxProviderName, PROVIDER_LABELS, SANDBOX_PROVIDER_NAMES, type SandboxCapabilities, type SandboxProviderName } from '../process/sandbox-provider-table';

/** What a new sandbox is made with (Settings › Sandboxes). */
export interface SandboxSpec {
  /** An image (`debian:12`) or the provider's template/snapshot name; default the provider's. */
  image?: string;
  cpu?: number;
  memoryGiB?: number;
  /** Minutes without a command before the sandbox is stopped. */
  idleTimeoutMin?: number;
  /** Marks the sandbox as Deepdesk's (`deepdesk: '1'`, the thread id), where the provider keeps labels. */
  labels: Record<string, string>;
}

export interface SandboxInfo {
  id: string;
  provider: SandboxProviderName;
  /** `running`, `stopped`, or the provider's own word for another state. */
  state: string;
  labels: Record<string, string>;
  /** ISO time, when the provider says. */
  createdAt?: string;
}

export interface SandboxExecOptions {
  /** Absolute path in the sandbox (default the sandbox's workdir). */
  cwd?: string;
  /** Ended with its whole process tree after this long. */
  timeoutMs: number;
  /** Ends the command and its whole process tree. */
  signal?: AbortSignal;
  /** Output as it arrives, where the provider streams (stdout and stderr interleaved). */
  onOutput?: (chunk: string) => void;
  /**
   * A short script that starts nothing meant to outlive it and needs no output as it arrives (the
   * file tools' and bring-back's): one call to the provider where it has one, with no session
   * made and ended around it. Its timeout still ends its process group; a cancel stops the
   * waiting at once, and the script ends by itself or at that timeout.
   */
  oneCall?: boolean;
}

export interface SandboxExecResult {
  /** stdout and stderr, in the order the provider gives them. */
  output: string;
  /** null when cancelled; 124 on timeout (as the local shell reports it). */
  exitCode: number | null;
  timedOut: boolean;
}

export interface SandboxFileUpload {
  /** Absolute path in the sandbox; parents are made. */
  path: string;
  content: Uint8Array;
  /** Unix mode bits to set (e.g. 0o755 for an executable); default the provider's. */
  mode?: number;
}

export type SandboxFileError = 'file_not_found' | 'permission_denied' | 'is_directory' | 'invalid_path';

export interface SandboxFileDownload {
  path: string;
  content?: Uint8Array;
  error?: SandboxFileError;
}

/** One running sandbox. Every call may throw SandboxProviderError. */
export interface ProviderSandbox {
  readonly id: string;
  readonly provider: SandboxProviderName;
  /** Absolute path in the sandbox where the folder's files are (e.g. `/home/daytona/workspace`). */
  readonly workdir: string;
  execute(command: string, options: SandboxExecOptions): Promise<SandboxExecResult>;
  /** Writes the files in as few calls as the provider allows; per-file errors are returned, not thrown. */
  upload(files: readonly SandboxFileUpload[], signal?: AbortSignal): Promise<Array<{ path: string; error?: SandboxFileError }>>;
  download(paths: readonly string[], signal?: AbortSignal): Promise<SandboxFileDownload[]>;
  /** Lets go of this process's connection (the sandbox keeps running). */
  close(): Promise<void>;
}

/**
 * A provider's sandboxes, as far as Deepdesk touches them: only those it made. Every call that
 * finds a sandbox by its id (`attach`, `stop`, `remove`) first reads that sandbox's labels from
 * the provider and refuses, with SandboxProviderError `not_deepdesk` (notDeepdesksSandbox),
 * one that does not carry DEEPDESK_LABEL — before it starts, connects to, stops or deletes it.
 * So `--sandbox-id`, `deepdesk sandboxes stop|rm`, the idle stop and the resume after it can
 * act on no other tool's sandbox of the same account, whichever caller names the id.
 */
export interface SandboxProvider {
  readonly name: SandboxProviderName;
  readonly capabilities: SandboxCapabilities;
  /** Makes a sandbox labelled DEEPDESK_LABEL (besides the spec's labels). */
  create(spec: SandboxSpec, signal?: AbortSignal): Promise<ProviderSandbox>;
  /** Finds Deepdesk's sandbox by id and starts it again when it is stopped; `gone` when there is none, `not_deepdesk` when it is not Deepdesk's. */
  attach(id: string, signal?: AbortSignal): Promise<ProviderSandbox>;
  /** The sandboxes this account has that carry `deepdesk: '1'`. */
  list(signal?: AbortSignal): Promise<SandboxInfo[]>;
  /** Stops Deepdesk's sandbox by id; `not_deepdesk` (and nothing done) when it is not Deepdesk's. */
  stop(id: string, signal?: AbortSignal): Promise<void>;
  /** Deletes Deepdesk's sandbox by id; `not_deepdesk` (and nothing done) when it is not Deepdesk's. */
  remove(id: string, signal?: AbortSignal): Promise<void>;
  /**
   * Only where the table's row says `fork` (providers.test.ts holds them together): `count` new
   * running sandboxes with the files of Deepdesk's running sandbox `id` (SPEC §21: candidates
   * fork from one set-up sandbox), each made with `spec` where the provider takes one and
   * carrying DEEPDESK_LABEL. All or nothing: when one cannot be made, those made are deleted and
   * the call throws. `not_deepdesk` (and nothing done) when `id` is not Deepdesk's.
   */
  fork?(id: string, count: number, spec: SandboxSpec, signal?: AbortSignal): Promise<ProviderSandbox[]>;
}

/** The label every sandbox Deepdesk makes carries (a Daytona label, an E2B metadata entry, a Modal tag, a Deno label). */
export const DEEPDESK_LABEL = { key: 'deepdesk', value: '1' } as const;

/** Whether a sandbox's labels, as its provider reports them, mark it as Deepdesk's. */
export function isDeepdesksSandbox(labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels !== undefined && Object.hasOwn(labels, DEEPDESK_LABEL.key) && labels[DEEPDESK_LABEL.key] === DEEPDESK_LABEL.value;
}

/** The refusal to touch a sandbox of the account that Deepdesk did not make. */
export function notDeepdesksSandbox(provider: SandboxProviderName, id: string): SandboxProviderError {
  return new SandboxProviderError(
    `The ${PROVIDER_LABELS[provider]} sandbox ${providerText(id)} is not Deepdesk's sandbox: it was not made by Deepdesk (it lacks the ${DEEPDESK_LABEL.key}=${DEEPDESK_LABEL.value} label), so Deepdesk does not attach to, stop or delete it (deepdesk sandboxes ls lists Deepdesk's).`,
    'not_deepdesk',
    provider,
  );
}

/** Throws notDeepdesksSandbox unless the labels mark the sandbox as Deepdesk's. */
export function requireDeepdesksSandbox(provider: SandboxProviderName, id: string, labels: Readonly<Record<string, string>> | undefined): void {
  if (!isDeepdesksSandbox(labels)) throw notDeepdesksSandbox(provider, id);
}

export type SandboxFailure =
  | 'credentials' // no key: the message names the variable and Settings
  | 'auth' // the key was refused
  | 'unreachable' // the service could not be reached
  | 'quota' // out of quota or over a limit
  | 'gone' // no such sandbox (deleted, expired, or vanished mid-run)
  | 'stopped' // the sandbox is there but stopped (paused): `attach` starts it again
  | 'not_deepdesk' // the sandbox exists but Deepdesk did not make it (no DEEPDESK_LABEL): never touched
  | 'unsupported' // the provider does not do this for this sandbox (a fork of a sandbox class that cannot fork)
  | 'timeout' // the service did not answer in time
  | 'failed'; // anything else the provider said

/** A provider's failure in plain words, as model connection problems are (SPEC §18). */
export class SandboxProviderError extends Error {
  constructor(
    message: string,
    readonly reason: SandboxFailure,
    readonly provider: SandboxProviderName,
  ) {
    super(message);
    this.name = 'SandboxProviderError';
  }
}

/** Where an implementation's credentials and endpoints come from: the environment, then Settings. */
export interface ProviderCredentials {
  env: NodeJS.ProcessEnv;
  /** Settings › Sandboxes keys by variable name (`DAYTONA_API_KEY`), from the secret store. */
  saved?: Record<string, string | undefined>;
}

/** The one line a missing key gives: `Daytona needs DAYTONA_API_KEY: set it in the environment or in Settings › Sandboxes.` */
export function missingCredentials(provider: SandboxProviderName, variables: readonly string[]): SandboxProviderError {
  const names = variables.length === 2 ? `${variables[0]} and ${variables[1]}` : variables.join(', ');
  return new SandboxProviderError(`${PROVIDER_LABELS[provider]} needs ${names}: set ${variables.length > 1 ? 'them' : 'it'} in the environment or in Settings › Sandboxes.`, 'credentials', provider);
}

/** A credential from the environment, else from Settings; empty counts as missing. */
export function credential(credentials: ProviderCredentials, name: string): string | undefined {
  // An empty variable in the environment is not a key: the saved one (if any) is used.
  const fromEnv = credentials.env[name];
  const value = fromEnv !== undefined && fromEnv !== '' ? fromEnv : credentials.saved?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * A provider's or its SDK's words as data: one short line (line breaks and tabs become spaces,
 * other control and invisible characters escapes), without an SDK's trailing `(status: …)` or
 * `(Trace ID: …)`, capped.
 */
export function providerText(text: string): string {
  const line = visibleLine(text.replace(/[\t\n\r\v\f]+/g, ' ').replace(/ {2,}/g, ' ').replace(/\s*\((status|Trace ID): [^)]*\)\s*$/, '').trim());
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
