// For tests: the Agent Protocol served in-process over a real HostRuns on a temp data folder,
// its model the scripted server (Settings' model and base URL), and the SDK's Client to call it.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { openDatabase } from '../../../../core/backends/store/store';
import { startScriptedServer, type ScriptedServer, type ScriptStep } from '../../../../core/models/testing/scripted-server';
import { databasePath } from '../../../data-dir';
import { NO_SECRETS } from '../../../settings/settings-service';
import { HostRuns } from '../../runs';
import type { ProtocolContext } from '../context';
import { startProtocolServer } from '../http';
import { protocolRoutes } from '../routes';

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
  close(): Promise<void>;
}

export async function startProtocolHarness(script: ScriptStep[] = []): Promise<ProtocolHarness> {
  const dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-protocol-')));
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-protocol-folder-')));
  execFileSync('git', ['init', '-q'], { cwd: folder });
  const scripted = await startScriptedServer(script);
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ model: 'openai-compatible:scripted-model', baseUrl: scripted.url }));
  const db = openDatabase(databasePath(dataDir));
  const runs = new HostRuns({ dataDir, db, version: 'test', secrets: NO_SECRETS });
  const context: ProtocolContext = {
    dataDir,
    db,
    runs,
    start: (connection, params) => runs.start(connection, params),
    defaultFolder: folder,
    env: { ...process.env, OPENAI_API_KEY: '' },
    folderRefusal: (asked) => (asked === folder ? undefined : `${asked} has not been opened in Deepdesk: open it once, or start the host with --folder ${asked}`),
    version: 'test',
    log: () => undefined,
  };
  const server = await startProtocolServer({ host: '127.0.0.1', port: 0, key: () => PROTOCOL_TEST_KEY, corsOrigins: [], routes: protocolRoutes(context) });
  const client = new Client({ apiUrl: server.url, apiKey: PROTOCOL_TEST_KEY });
  return {
    client,
    url: server.url,
    key: PROTOCOL_TEST_KEY,
    dataDir,
    folder,
    scripted,
    context,
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
