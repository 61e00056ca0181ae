// THE table of sandbox providers (SPEC §18), its data part: one row per provider, and nothing
// else in Deepdesk names a provider or one of its variables. Everything is derived from it: the
// provider's name type, the contract's enums, the `--sandbox` choices and usage text, Settings ›
// Sandboxes (keys, CPU and memory), the child environment's credential rule (app-secrets.ts).
// The other part, keyed by the same names, is core/sandbox-providers/registry.ts: each
// provider's factory (its adapter, loaded lazily with its SDK) and its test stand-in.
//
// Pure data, so the window may take it through the contract without any SDK; it lives in
// core/process, below sandbox-providers, because the credential rule (app-secrets.ts) reads it.
// providers.test.ts fails on a provider's name or variable written anywhere else.

export interface SandboxCapabilities {
  /** A sandbox can be found again by id after this process ends (`--sandbox-id`). */
  reattach: boolean;
  /** A stopped sandbox can be started again with its files (else stop = delete). */
  resume: boolean;
  /** A running sandbox's files can be kept as a snapshot new sandboxes start from. */
  snapshot: boolean;
  /** A set-up sandbox can be copied into new ones (SPEC §21: candidates fork from one). */
  fork: boolean;
  /** The provider stops a sandbox idle past a timeout by itself (else Deepdesk's sweep does). */
  idleTimeout: boolean;
}

export interface SandboxProviderRow {
  /** How the window, approvals and the Agents view name it (`Runs in Daytona`). */
  label: string;
  /** The credentials it needs: Settings › Sandboxes keeps them as the model keys are, and no command Deepdesk starts sees them. */
  keys: readonly string[];
  /** Every other variable its adapter or SDK reads to decide where it connects (how the tests point it at its stand-in). */
  endpoints: readonly string[];
  capabilities: SandboxCapabilities;
  /** The sizes Settings › Sandboxes offers for it (its adapter passes them on). */
  offers: { cpu: boolean; memory: boolean };
}

export const SANDBOX_PROVIDER_TABLE = {
  daytona: {
    label: 'Daytona',
    keys: ['DAYTONA_API_KEY'],
    // DAYTONA_SERVER_URL: the SDK's older name of the API URL, which the adapter honours too.
    endpoints: ['DAYTONA_API_URL', 'DAYTONA_SERVER_URL', 'DAYTONA_TARGET'],
    // @daytonaio/sdk: Daytona.get (reattach), start (resume), Sandbox.createSnapshot, Sandbox.fork
    // (a copy-on-write clone of a running sandbox), autoStopInterval.
    capabilities: { reattach: true, resume: true, snapshot: true, fork: true, idleTimeout: true },
    offers: { cpu: true, memory: true },
  },
  modal: {
    label: 'Modal',
    keys: ['MODAL_TOKEN_ID', 'MODAL_TOKEN_SECRET'],
    // MODAL_PROFILE and MODAL_CONFIG_PATH: the SDK's choice of ~/.modal.toml profile, which can name the server.
    endpoints: ['MODAL_SERVER_URL', 'MODAL_ENVIRONMENT', 'MODAL_PROFILE', 'MODAL_CONFIG_PATH'],
    // modal: Sandbox.fromId (reattach), no resume (terminate is the end), Sandbox.snapshotFilesystem
    // (an Image new sandboxes start from: a fork of the files, not of the processes), idleTimeout.
    capabilities: { reattach: true, resume: false, snapshot: true, fork: true, idleTimeout: true },
    offers: { cpu: true, memory: true },
  },
  e2b: {
    label: 'E2B',
    keys: ['E2B_API_KEY'],
    // E2B_DEBUG: the SDK then talks to a local E2B (localhost).
    endpoints: ['E2B_DOMAIN', 'E2B_API_URL', 'E2B_SANDBOX_URL', 'E2B_DEBUG'],
    // e2b: Sandbox.connect (reattach, resuming a paused one), createSnapshot, Sandbox.fork, the sandbox timeout.
    capabilities: { reattach: true, resume: true, snapshot: true, fork: true, idleTimeout: true },
    // Sized by its template only.
    offers: { cpu: false, memory: false },
  },
  deno: {
    label: 'Deno',
    // DENO_DEPLOY_ORG: needed with a personal token (an organization token, ddo_…, names its own).
    keys: ['DENO_DEPLOY_TOKEN', 'DENO_DEPLOY_ORG'],
    endpoints: ['DENO_DEPLOY_ENDPOINT', 'DENO_SANDBOX_ENDPOINT', 'DENO_SANDBOX_BASE_DOMAIN'],
    // @deno/sandbox: Sandbox.connect (reattach); no stop-and-start, and snapshots are of volumes,
    // never of a running sandbox, so no fork; a sandbox lives for its timeout, whatever it does.
    capabilities: { reattach: true, resume: false, snapshot: false, fork: false, idleTimeout: false },
    // Sandbox.create takes memory, not CPUs.
    offers: { cpu: false, memory: true },
  },
} as const satisfies Record<string, SandboxProviderRow>;

export type SandboxProviderName = keyof typeof SANDBOX_PROVIDER_TABLE;

/** The providers, in the table's order (the first is the window's default choice). */
export const SANDBOX_PROVIDER_NAMES = Object.keys(SANDBOX_PROVIDER_TABLE) as [SandboxProviderName, ...SandboxProviderName[]];

export function isSandboxProviderName(value: string): value is SandboxProviderName {
  return Object.hasOwn(SANDBOX_PROVIDER_TABLE, value);
}

/** How the window, approvals and the Agents view name a provider (`Runs in Daytona`). */
export const PROVIDER_LABELS = Object.fromEntries(SANDBOX_PROVIDER_NAMES.map((name) => [name, SANDBOX_PROVIDER_TABLE[name].label])) as Record<SandboxProviderName, string>;

/** Every provider's credential variables: Deepdesk's own credentials (app-secrets.ts), saved by Settings › Sandboxes. */
export const SANDBOX_KEY_VARIABLES: readonly string[] = SANDBOX_PROVIDER_NAMES.flatMap((name) => SANDBOX_PROVIDER_TABLE[name].keys);
