// The app behind the window for tests that drive it through its contract: a real folder and
// data folder, real SQLite, the scripted model server, and every app opened closed after
// each test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../core/models/testing/scripted-server';
import { createApp, type App } from './folder-app';
import type { EventFrame, MethodName, Params, Result } from '../contract';
import { FileSecretStore } from '../settings/file-secret-store';

export type Call = <M extends MethodName>(method: M, params: Params<M>) => Promise<Result<M>>;

export interface OpenedApp {
  app: App;
  call: Call;
  /** Every event the app sent, in order. */
  events: EventFrame[];
  /** Closes this app now (e.g. to restart on the same data). */
  close(): Promise<void>;
}

export interface AppTestEnv {
  folder: string;
  dataDir: string;
  server: ScriptedServer;
  /** Opens the app on the folder and data folder, with the scripted model (or, with `settings`, as those settings say and no key in the environment). */
  open(options?: OpenOptions): Promise<OpenedApp>;
}

export interface OpenOptions {
  /** Written to settings.json first; the app then runs on them alone (no scripted-model overrides, no keys in its environment). */
  settings?: Record<string, unknown>;
  /** Added to the environment the app opens with `settings` (otherwise it has only PATH). */
  env?: NodeJS.ProcessEnv;
}

/** Registers the set-up and clean-up of one app environment per test; read it inside tests. */
export function useAppTestEnv(prefix: string): AppTestEnv {
  const apps: App[] = [];
  const env = { open } as AppTestEnv;
  async function open(options: OpenOptions = {}): Promise<OpenedApp> {
    if (options.settings) writeFileSync(join(env.dataDir, 'settings.json'), JSON.stringify(options.settings));
    const app = await createApp({
      folder: env.folder,
      dataDir: env.dataDir,
      secrets: new FileSecretStore(env.dataDir),
      transport: 'web',
      ...(options.settings
        ? { env: { PATH: process.env.PATH, ...options.env } }
        : { overrides: { model: 'openai-compatible:scripted-model', baseUrl: env.server.url }, env: { ...process.env, OPENAI_API_KEY: '' } }),
    });
    apps.push(app);
    const events: EventFrame[] = [];
    app.onEvent((frame) => events.push(frame));
    const call: Call = (method, params) => app.handle(method, params) as Promise<Result<typeof method>>;
    const close = async (): Promise<void> => {
      apps.splice(apps.indexOf(app), 1);
      await app.close();
    };
    return { app, call, events, close };
  }
  beforeEach(async () => {
    env.folder = mkdtempSync(join(tmpdir(), `${prefix}-`));
    env.dataDir = mkdtempSync(join(tmpdir(), `${prefix}-data-`));
    env.server = await startScriptedServer();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await env.server.close();
    rmSync(env.folder, { recursive: true, force: true });
    rmSync(env.dataDir, { recursive: true, force: true });
  });
  return env;
}

/** Polls `probe` until it gives a value (not undefined or false); fails after the timeout, naming `what`. */
export async function until<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not met in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
