// Settings: model, base URL, approval rules, subagents, theme, mounts and the memories store in
// `<data-dir>/settings.json` (a memories store URL never holds a password: PGPASSWORD or ~/.pgpass do);
// API keys in the SecretStore (never sent to the window, only whether one is stored).
// The file is a JsonFileStore: an unreadable one is kept aside and told, an invalid field
// never costs the others, a save changes only the fields it sets (merged under a lock with
// what other windows saved) and is in memory only once it is on disk, and a save by another
// process reaches onChange listeners.

import { SANDBOX_KEY_VARIABLES, SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE } from '../../core/process/sandbox-provider-table';
import { join, resolve } from 'node:path';
import { settingsSchema, type permissionRuleSchema, type settingsPatchSchema, type Settings } from '../contract';
import { PROVIDERS, type ProviderName } from '../../core/models/types';
import { withholdFromCommands } from '../../core/process/app-secrets';
import type { SecretStore } from '../base/secret-store';
import { fieldsShape, JsonFileStore, type JsonFileProblem } from '../../core/config/json-file-store';
import type { z } from 'zod';

const DEFAULTS: Omit<Settings, 'apiKeys'> = { model: '', baseUrl: '', rules: [], subagents: [], theme: 'system', mounts: [], memoriesStore: 'sqlite' };

const stored = settingsSchema.omit({ apiKeys: true, overridden: true }).shape;
/** settings.json, field by field (rules and subagents entry by entry). */
export const settingsFileShape = fieldsShape({
  model: stored.model.optional(),
  baseUrl: stored.baseUrl.optional(),
  contextWindow: stored.contextWindow,
  rules: stored.rules.optional(),
  subagents: stored.subagents.optional(),
  models: stored.models,
  theme: stored.theme.optional(),
  mediaInput: stored.mediaInput,
  mounts: stored.mounts.optional(),
  memoriesStore: stored.memoriesStore.optional(),
  memories: stored.memories,
  prices: stored.prices,
  threadBudgetUsd: stored.threadBudgetUsd,
  maxConcurrentRuns: stored.maxConcurrentRuns,
  budgets: stored.budgets,
  telemetry: stored.telemetry,
  goals: stored.goals,
  reviewer: stored.reviewer,
  agents: stored.agents,
  agentProtocol: stored.agentProtocol,
  sandboxes: stored.sandboxes,
  provenance: stored.provenance,
});
type StoredSettings = ReturnType<typeof settingsFileShape.check>['value'];
type Rule = z.output<typeof permissionRuleSchema>;
type SavedMount = Settings['mounts'][number];

/** The fields a patch clears with `null`. */
const CLEARED_BY_NULL = ['contextWindow', 'threadBudgetUsd', 'maxConcurrentRuns', 'reviewer'] as const;

/** No keys: for a command that reads settings.json and never a key. */
export const NO_SECRETS: SecretStore = { get: async () => undefined, set: async () => undefined, delete: async () => undefined };

/** settings.json as it is now, read once, without keys (for a command that only reads it). */
export function readSavedSettings(dataDir: string): Omit<Settings, 'apiKeys'> {
  // A reader that tells nobody leaves an unreadable file for the one that tells the person.
  const settings = new SettingsService(dataDir, NO_SECRETS, { readOnly: true });
  try {
    return settings.raw();
  } finally {
    settings.close();
  }
}

export type FolderProvenance = Record<'enabled' | 'push' | 'trailer', boolean>;

/** The folder's choices: its own entry over the global ones; notes are written unless turned off. */
export function provenanceFor(settings: Settings['provenance'], folder: string): FolderProvenance {
  const own = folderEntry(settings?.folders, folder);
  const pick = (key: keyof FolderProvenance, otherwise: boolean): boolean => own?.[key] ?? settings?.[key] ?? otherwise;
  return { enabled: pick('enabled', true), push: pick('push', false), trailer: pick('trailer', false) };
}

/** The folder's reviewer (SPEC §23): its own entry over the global one; undefined when review is off there. */
export function reviewerFor(settings: Settings['reviewer'], folder: string): { model: string; timeoutSeconds?: number } | undefined {
  const own = folderEntry(settings?.folders, folder);
  const model = own?.model ?? settings?.model;
  const timeoutSeconds = own?.timeoutSeconds ?? settings?.timeoutSeconds;
  return model === undefined || model.trim() === 'off' ? undefined : { model, ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) };
}

/** A setting's own entry for the folder (`"folders": {"DIR": …}`), if it has one. */
function folderEntry<T>(folders: Record<string, T> | undefined, folder: string): T | undefined {
  return Object.entries(folders ?? {}).find(([dir]) => resolve(dir) === resolve(folder))?.[1];
}

export interface SettingsServiceOptions {
  /** Told of each problem with settings.json (and of earlier ones at once). */
  onProblem?: (problem: JsonFileProblem) => void;
  /** Only reads settings.json (see JsonFileStoreOptions.readOnly). */
  readOnly?: boolean;
}

export class SettingsService {
  private readonly store: JsonFileStore<StoredSettings>;
  private readonly listeners = new Set<(settings: Settings) => void>();
  private readonly stopSecrets: (() => void) | undefined;

  constructor(
    dataDir: string,
    private readonly secrets: SecretStore,
    options: SettingsServiceOptions = {},
  ) {
    this.store = new JsonFileStore({
      path: join(dataDir, 'settings.json'),
      shape: settingsFileShape,
      defaultsText: 'the default settings apply (no model, no rules) until you save them again',
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
      ...(options.readOnly ? { readOnly: true } : {}),
    });
    this.store.onChange(() => void this.notify());
    // Keys stored from another window change which providers have one.
    this.stopSecrets = secrets.onChange?.(() => void this.notify());
  }

  onChange(listener: (settings: Settings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The settings without secrets. */
  raw(): Omit<Settings, 'apiKeys'> {
    return { ...DEFAULTS, ...this.store.current() };
  }

  async get(): Promise<Settings> {
    const apiKeys: Record<string, boolean> = {};
    for (const p of PROVIDERS) apiKeys[p] = (await this.secrets.get(keyName(p))) !== undefined;
    const sandboxKeys: NonNullable<Settings['sandboxKeys']> = {};
    for (const provider of SANDBOX_PROVIDER_NAMES) {
      const keys: readonly string[] = SANDBOX_PROVIDER_TABLE[provider].keys;
      sandboxKeys[provider] = Object.fromEntries(await Promise.all(keys.map(async (v) => [v, (await this.secrets.get(sandboxKeyName(v))) !== undefined] as const)));
    }
    return { ...this.raw(), apiKeys, sandboxKeys };
  }

  /**
   * Saves the fields of `patch` (only those) onto settings.json as it is now. Throws when the
   * file could not be written; then nothing changed. Listeners hear of the change.
   */
  async update(patch: z.output<typeof settingsPatchSchema>): Promise<Settings> {
    this.store.update((current) => {
      const next: Record<string, unknown> = { ...current, ...stripUndefined(patch) };
      for (const key of CLEARED_BY_NULL) if (patch[key] === null) delete next[key];
      return next as StoredSettings;
    });
    return this.get();
  }

  /** Appends a rule to the rules as they are in the file now ("Always allow"). */
  async addRule(rule: Rule): Promise<Settings> {
    this.store.update((current) => ({ ...current, rules: [...(current.rules ?? []), rule] }));
    return this.get();
  }

  /** Saves a mount (replacing the one at its prefix) onto the mounts as they are in the file now. */
  async putMount(mount: SavedMount): Promise<Settings> {
    this.store.update((current) => ({ ...current, mounts: [...(current.mounts ?? []).filter((m) => m.prefix !== mount.prefix), mount] }));
    return this.get();
  }

  /** Removes the saved mount at `prefix` (as written or normalised), from the file as it is now. */
  async removeMount(prefix: string): Promise<Settings> {
    this.store.update((current) => ({ ...current, mounts: (current.mounts ?? []).filter((m) => m.prefix !== prefix) }));
    return this.get();
  }

  async setApiKey(provider: ProviderName, key: string): Promise<Settings> {
    return this.saveKey(keyName(provider), key);
  }

  /**
   * The key saved in Settings, if any. A key in the environment is not looked up here: the
   * model factory and the model list read it from the one table (core/models/provider-keys.ts),
   * with the bearer tokens it names sent as such.
   */
  async apiKeyFor(provider: ProviderName): Promise<string | undefined> {
    return this.readKey(keyName(provider));
  }

  /** Settings › Sandboxes keys by the provider's variable name (`DAYTONA_API_KEY`), those saved. */
  async sandboxKeys(): Promise<Record<string, string | undefined>> {
    const keys: Record<string, string | undefined> = {};
    for (const variable of SANDBOX_KEY_VARIABLES) {
      const stored = await this.readKey(sandboxKeyName(variable));
      if (stored !== undefined) keys[variable] = stored;
    }
    return keys;
  }

  /** Saves (or, empty, forgets) a provider's key, kept as the model keys are. */
  async setSandboxKey(variable: string, value: string): Promise<Settings> {
    if (!isSandboxKeyVariable(variable)) throw new Error(`not a sandbox provider's key: ${variable}`);
    return this.saveKey(sandboxKeyName(variable), value);
  }

  /** A stored key, withheld from commands. */
  private async readKey(name: string): Promise<string | undefined> {
    const stored = await this.secrets.get(name);
    withholdFromCommands(stored);
    return stored;
  }

  /** Saves a key (trimmed), or forgets it when empty. */
  private async saveKey(name: string, value: string): Promise<Settings> {
    if (value.trim() === '') await this.secrets.delete(name);
    else await this.secrets.set(name, value.trim());
    withholdFromCommands(value);
    // A store that tells of its changes has told the listeners already.
    if (this.secrets.onChange === undefined) await this.notify();
    return this.get();
  }

  close(): void {
    this.stopSecrets?.();
    this.store.close();
    this.listeners.clear();
  }

  private async notify(): Promise<void> {
    if (this.listeners.size === 0) return;
    const settings = await this.get();
    for (const l of this.listeners) l(settings);
  }
}

function keyName(provider: ProviderName): string {
  return `api-key:${provider}`;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Every provider's key variables (THE table, core/process/sandbox-provider-table.ts) are saved under `sandbox:<VARIABLE>`. */
export function isSandboxKeyVariable(variable: string): boolean {
  return SANDBOX_KEY_VARIABLES.includes(variable);
}

function sandboxKeyName(variable: string): string {
  return `sandbox:${variable}`;
}
