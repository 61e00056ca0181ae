// The ACP transport (SPEC §14): the SDK's agent side over newline-delimited JSON-RPC. The
// SDK answers what the protocol itself requires (a line that is not JSON → -32700, an
// unknown method → -32601, params that do not match the schema → -32602, a request before
// initialize → -32600); the handlers here map the methods onto the sessions.

import { agent, methods, PROTOCOL_VERSION, type AgentConnection, type ClientCapabilities, type Stream } from '@agentclientprotocol/sdk';
import { AcpSessions, type AcpSessionsOptions, type EditorClient } from './sessions';

export interface AcpAgentOptions extends AcpSessionsOptions {
  version: string;
  /** Called as the agent ends (its editor gone, or closed): what it holds is let go. */
  release(): void;
}

export interface RunningAcpAgent {
  /**
   * Resolves when the editor has gone (its stream ended) and the sessions are closed: a prompt
   * being worked on then goes on to its end first (AcpSessions.detachAll).
   */
  closed: Promise<void>;
  /** Whether a session's prompt is being worked on. */
  busy(): boolean;
  working(threadId: string): boolean;
  /** Stops a thread's prompt (`deepdesk stop`); false when it is not one of these sessions'. */
  stop(threadId: string): Promise<boolean>;
  /** Ends every session now (its run, its MCP servers). */
  close(): Promise<void>;
}

export function startAcpAgent(stream: Stream, options: AcpAgentOptions): RunningAcpAgent {
  let capabilities: ClientCapabilities = {};
  // Set by connect() below: no handler runs before it returns.
  const peer: { client?: AgentConnection['client'] } = {};
  const client = () => peer.client!;
  const editor: EditorClient = {
    async update(sessionId, update) {
      await client().notify(methods.client.session.update, { sessionId, update });
    },
    requestPermission(params, signal) {
      return client().request(methods.client.session.requestPermission, params, { cancellationSignal: signal, stopWaitingOnCancel: true });
    },
    terminal(sessionId) {
      if (capabilities.terminal !== true) return undefined;
      return (params) => client().createTerminal({ sessionId, ...params });
    },
    files(sessionId) {
      const fs = capabilities.fs ?? {};
      return {
        ...(fs.readTextFile === true
          ? { read: async (path: string) => (await client().request(methods.client.fs.readTextFile, { sessionId, path })).content }
          : {}),
        ...(fs.writeTextFile === true
          ? { write: async (path: string, content: string) => void (await client().request(methods.client.fs.writeTextFile, { sessionId, path, content })) }
          : {}),
      };
    },
  };
  const sessions = new AcpSessions(options, editor);

  const app = agent({ name: 'deepdesk' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        agentInfo: { name: 'deepdesk', title: 'Deepdesk', version: options.version },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params }) => sessions.newSession(params.cwd, params.mcpServers))
    .onRequest(methods.agent.session.load, async ({ params }) => sessions.loadSession(params.sessionId, params.cwd, params.mcpServers))
    .onRequest(methods.agent.session.resume, async ({ params }) => sessions.loadSession(params.sessionId, params.cwd, params.mcpServers ?? [], false))
    .onRequest(methods.agent.session.close, async ({ params }) => {
      await sessions.closeSession(params.sessionId);
      return {};
    })
    .onRequest(methods.agent.session.list, ({ params }) => sessions.list(params.cwd))
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      sessions.setMode(params.sessionId, params.modeId);
      return {};
    })
    .onRequest(methods.agent.session.prompt, async ({ params }) => ({ stopReason: await sessions.prompt(params.sessionId, params.prompt) }))
    .onNotification(methods.agent.session.cancel, ({ params }) => sessions.cancel(params.sessionId));

  const connection = app.connect(stream);
  peer.client = connection.client;
  return {
    closed: connection.closed.then(() => sessions.detachAll()).finally(() => options.release()),
    busy: () => sessions.busy(),
    working: (threadId) => sessions.working(threadId),
    stop: (threadId) => sessions.stop(threadId),
    close: async () => {
      try {
        connection.close();
        await sessions.closeAll();
      } finally {
        options.release();
      }
    },
  };
}
