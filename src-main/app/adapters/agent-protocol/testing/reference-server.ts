// The reference LangGraph server (`@langchain/langgraph-api` 1.5.1, the one SPEC §19 defers
// to) in this process, serving `deepdesk` (reference-graph.mjs: Deep Agents on the scripted
// model, with an approval on `write_file`), so protocol cases can be checked against it before
// they are held against Deepdesk. Its storage is module-wide: one per test file.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { startScriptedServer, type ScriptedServer, type ScriptStep } from '../../../../core/models/testing/scripted-server';

export interface ReferenceServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The scripted model the graph calls. */
  model: ScriptedServer;
  /** A file the graph wrote on a thread (Deep Agents' state backend keeps them in the thread's `files`). */
  files(threadId: string, path: string): Promise<string | undefined>;
  close(): Promise<void>;
}

const GRAPH = fileURLToPath(new URL('./reference-graph.mjs', import.meta.url));

export async function startReferenceServer(script: ScriptStep[] = []): Promise<ReferenceServer> {
  const model = await startScriptedServer(script, { model: 'gpt-test' });
  process.env.DEEPDESK_REFERENCE_MODEL_URL = model.url;
  // Quiet unless a test asks: the reference logs every request.
  process.env.LOG_LEVEL ??= 'error';
  const cwd = await mkdtemp(join(tmpdir(), 'deepdesk-reference-'));
  const { startServer } = await import('@langchain/langgraph-api/server');
  const { host, cleanup } = await startServer({ port: 0, nWorkers: 2, host: '127.0.0.1', cwd, graphs: { deepdesk: `${GRAPH}:graph` } });
  const url = `http://${host}`;
  return {
    url,
    model,
    async files(threadId, path) {
      const state = await new Client({ apiUrl: url }).threads.getState<{ files?: Record<string, { content: string | string[] }> }>(threadId);
      const content = state.values.files?.[path]?.content;
      return Array.isArray(content) ? content.join('\n') : content;
    },
    async close() {
      await cleanup();
      await model.close();
      await rm(cwd, { recursive: true, force: true });
    },
  };
}
