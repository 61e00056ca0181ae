// Settings: model, base URL, approval rules, subagents, theme in `<data-dir>/settings.json`;
// API keys in the SecretStore (never sent to the window, only whether one is stored).

import { join } from 'node:path';
import { settingsSchema, type settingsPatchSchema, type Settings } from '../contract';
import { PROVIDERS, type ProviderName } from '../../core/models/types';
import { withholdFromCommands } from '../../core/backends/shell-env';
import type { SecretStore } from '../secret-store';
import { readJsonFile, writeJsonFileAtomic } from './atomic-json';
import type { z } from 'zod';

const DEFAULTS: Omit<Settings, 'apiKeys'> = { model: '', baseUrl: '', rules: [], subagents: [], theme: 'system' };

export const API_KEY_ENV: Record<ProviderName, string | undefined> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': 'OPENAI_API_KEY',
  ollama: undefined,
};

export class SettingsService {
  private readonly path: string;
  private current: Omit<Settings, 'apiKeys'>;
  private readonly listeners = new Set<(settings: Settings) => void>();

  constructor(
    dataDir: string,
    private readonly secrets: SecretStore,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.path = join(dataDir, 'settings.json');
    const stored = settingsSchema.omit({ apiKeys: true }).partial().safeParse(readJsonFile(this.path));
    this.current = { ...DEFAULTS, ...(stored.success ? stored.data : {}) };
  }

  onChange(listener: (settings: Settings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The settings without secrets. */
  raw(): Omit<Settings, 'apiKeys'> {
    return this.current;
  }

  async get(): Promise<Settings> {
    const apiKeys: Record<string, boolean> = {};
    for (const p of PROVIDERS) apiKeys[p] = (await this.secrets.get(keyName(p))) !== undefined;
    return { ...this.current, apiKeys };
  }

  async update(patch: z.output<typeof settingsPatchSchema>): Promise<Settings> {
    const { contextWindow, ...rest } = patch;
    this.current = { ...this.current, ...stripUndefined(rest) };
    if (contextWindow === null) delete this.current.contextWindow;
    else if (contextWindow !== undefined) this.current.contextWindow = contextWindow;
    writeJsonFileAtomic(this.path, this.current);
    const settings = await this.get();
    for (const l of this.listeners) l(settings);
    return settings;
  }

  async setApiKey(provider: ProviderName, key: string): Promise<Settings> {
    if (key.trim() === '') await this.secrets.delete(keyName(provider));
    else await this.secrets.set(keyName(provider), key.trim());
    withholdFromCommands(key);
    const settings = await this.get();
    for (const l of this.listeners) l(settings);
    return settings;
  }

  /** The stored key, else the provider's usual environment variable. */
  async apiKeyFor(provider: ProviderName): Promise<string | undefined> {
    const stored = await this.secrets.get(keyName(provider));
    withholdFromCommands(stored);
    if (stored !== undefined) return stored;
    const envName = API_KEY_ENV[provider];
    return envName ? this.env[envName] : undefined;
  }
}

function keyName(provider: ProviderName): string {
  return `api-key:${provider}`;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
