// The protocol cases (testing/protocol-cases.ts) against the reference LangGraph server, to
// keep them honest, and against Deepdesk's server for the route families it serves.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { openDatabase } from '../../../core/backends/store/store';
import { startScriptedServer, type ScriptedServer } from '../../../core/models/testing/scripted-server';
import { databasePath } from '../../data-dir';
import { NO_SECRETS } from '../../settings/settings-service';
import { HostRuns } from '../runs';
import type { ProtocolContext } from './context';
import { startProtocolServer, type ProtocolServer } from './http';
import { protocolRoutes } from './routes';
import { casesFor, PROTOCOL_CASES, type CaseTarget } from './testing/protocol-cases';
import { startReferenceServer, type ReferenceServer } from './testing/reference-server';

const KEY = 'protocol-cases-key';

describe('the reference LangGraph server', () => {
  let reference: ReferenceServer;
  beforeAll(async () => {
    reference = await startReferenceServer();
  });
  afterAll(async () => reference.close());

  test.for(PROTOCOL_CASES.map((c) => [c.name, c] as const))('%s', async ([, c]) => {
    await c.run({ url: reference.url, model: reference.model });
  });
});

// Deepdesk's side in this process: a data folder, its database, the host's runs, the routes.
const dataDir = await mkdtemp(join(tmpdir(), 'deepdesk-protocol-cases-'));
const db = openDatabase(databasePath(dataDir));
const runs = new HostRuns({ dataDir, db, version: 'test', secrets: NO_SECRETS });
const context: ProtocolContext = { dataDir, db, runs, start: (connection, params) => runs.start(connection, params), defaultFolder: undefined, folderRefusal: () => undefined, version: '0.0.0-test', log: () => undefined };
const routes = protocolRoutes(context);

describe("Deepdesk's server", () => {
  let server: ProtocolServer;
  let model: ScriptedServer;
  const target = {} as CaseTarget;

  beforeAll(async () => {
    model = await startScriptedServer([], { model: 'gpt-test' });
    server = await startProtocolServer({ host: '127.0.0.1', port: 0, key: () => KEY, corsOrigins: [], routes });
    Object.assign(target, { url: server.url, apiKey: KEY, model });
  });
  afterAll(async () => {
    await server.close();
    await model.close();
    db.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  // Only the families whose routes are served here; the others' cases join as their routes do.
  test.for(casesFor(routes).map((c) => [c.name, c] as const))('%s', async ([, c]) => {
    await c.run(target);
  });
});
