// For tests: the Agent Protocol served in-process over a real HostRuns on a temp data folder,
// its model the scripted server (Settings' model and base URL), and the SDK's Client to call it.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { afterEach, beforeEach } from 'vitest';
import { openDatabase } from '../../../../core/backends/store/store';
import { startScriptedServer, type ScriptedServer, type ScriptStep } from '../../../../core/models/testing/scripted-server';
import { databasePath } from '../../../base/data-dir';
import { NO_SECRETS } from '../../../settings/settings-service';
import type Database from 'better-sqlite3';
import { HostRuns } from '../../../host/runs';
import type { ProtocolContext } from '../context';
import { startProtocolServer, type Route } from '../http';
import type { ProtocolRuns } from '../protocol-runs';
import { protocolRoutes, protocolRuns } from '../routes';

export const PROTOCOL_TEST_KEY = 'protocol-test-key';

export interface ProtocolHarness {
  client: Client;
  url: string;
  key: string;
  dataDir: string;
  /** A git folder the host's runs work in (the host's `--folder`). */
  folder: string;
  scripted: ScriptedServer;
  context: ProtocolContext;
  /** The host's one ProtocolRuns the routes serve (another listener's routes may share it). */
  protocolRuns: ProtocolRuns;
  /** A file in `folder` (a run's `/path`), undefined when there is none. */
  files(threadId: string, path: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The scripted model's first steps (more can be pushed on `scripted`). */
  script?: ScriptStep[];
  /** Settings beside the scripted model's (e.g. `subagents`). */
  settings?: Record<string, unknown>;
  /** This build's version, as `/info` answers it. */
  version?: string;
  /** The database the routes are given, from the real one (e.g. one that counts its statements). */
  db?: (db: Database.Database) => Database.Database;
  /** The routes served (all of them unless given). */
  routes?: (context: ProtocolContext) => Route[];
  /** Browser origins allowed (CORS): a client sending `Origin` plays a page. */
  corsOrigins?: string[];
}

export async function startProtocolHarness(options: HarnessOptions = {}): Promise<ProtocolHarness> {
  const dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-protocol-')));
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-protocol-folder-')));
  execFileSync('git', ['init', '-q'], { cwd: folder });
  const scripted = await startScriptedServer(options.script ?? []);
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ ...options.settings, model: 'openai-compatible:scripted-model', baseUrl: scripted.url }));
  const db = openDatabase(databasePath(dataDir));
  const version = options.version ?? 'test';
  const runs = new HostRuns({ dataDir, db, version, secrets: NO_SECRETS });
  const context: ProtocolContext = {
    dataDir,
    db: options.db?.(db) ?? db,
    runs,
    defaultFolder: folder,
    env: { ...process.env, OPENAI_API_KEY: '' },
    folderRefusal: (asked) => (asked === folder ? undefined : `${asked} has not been opened in Deepdesk: open it once, or start the host with --folder ${asked}`),
    version,
    log: () => undefined,
  };
  const hostRuns = protocolRuns(context);
  const server = await startProtocolServer({ host: '127.0.0.1', port: 0, key: () => PROTOCOL_TEST_KEY, corsOrigins: options.corsOrigins ?? [], routes: (options.routes ?? ((c) => protocolRoutes(c, hostRuns)))(context) });
  const client = new Client({ apiUrl: server.url, apiKey: PROTOCOL_TEST_KEY });
  return {
    client,
    url: server.url,
    key: PROTOCOL_TEST_KEY,
    dataDir,
    folder,
    scripted,
    context,
    protocolRuns: hostRuns,
    async files(_threadId, path) {
      const file = join(folder, path);
      return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    },
    async close() {
      await server.close();
      await runs.close();
      await scripted.close();
      db.close();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
      rmSync(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    },
  };
}

/** One part of an SDK stream, as its tests read it. */
export interface StreamPart {
  event: string;
  data: unknown;
  id?: string;
}

/** Everything an SDK stream gives, to its end. */
export async function collectParts(parts: AsyncIterable<unknown>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of parts) out.push(part as StreamPart);
  return out;
}

/** Reads `read` until `ok` holds (20 s at most: the error says what was awaited and what was read last). */
export async function until<T>(read: () => T | Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A fresh harness for each test of the file (made before it, closed after it): the object
 * returned reads the current one.
 */
export function protocolHarnessPerTest(options?: Parameters<typeof startProtocolHarness>[0]): ProtocolHarness {
  let current: ProtocolHarness | undefined;
  beforeEach(async () => {
    current = await startProtocolHarness(options);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as ProtocolHarness, {
    get(_, key) {
      if (current === undefined) throw new Error('the protocol harness is made for each test: read it inside one');
      return current[key as keyof ProtocolHarness];
    },
  });
}

/** A run's input of one person's message. */
export const human = (content: string) => ({ messages: [{ role: 'user', content }] });
