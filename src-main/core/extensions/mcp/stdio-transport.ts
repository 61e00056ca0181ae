// Starts an MCP stdio server as a supervised process and speaks JSON-RPC over its pipes.
// PLACEHOLDER until core/process lands: runs the server unsandboxed through the SDK's own
// transport. Helper B replaces this file (same exports) with the supervised version.
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpStdioServerConfig } from '../../config/mcp-config-types';
import type { ProcessExit } from '../../process/types';

export interface StdioServerContext {
  /** The project folder (real path): the server's cwd and, sandboxed, its one writable folder. */
  folder: string;
  /** Deepdesk's data folder (never readable inside the sandbox). */
  dataDir: string;
  /** Deepdesk's own environment; the server gets it scrubbed of the app's secrets, plus its entry's `env`. */
  env: NodeJS.ProcessEnv;
}

export interface StdioServerProcess {
  transport: Transport;
  /** The tail of the server's stderr. */
  logTail(): string;
  onLog(listener: (line: string) => void): () => void;
  readonly exited: Promise<ProcessExit>;
  /** Ends the server's whole process tree. */
  stop(): Promise<void>;
}

export async function startStdioServer(config: McpStdioServerConfig, context: StdioServerContext): Promise<StdioServerProcess> {
  const lines: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const transport = new StdioClientTransport({ command: config.command, args: config.args, env: { ...(context.env as Record<string, string>), ...config.env }, cwd: context.folder, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      lines.push(line);
      if (lines.length > 200) lines.shift();
      for (const l of listeners) l(line);
    }
  });
  let resolveExit!: (exit: ProcessExit) => void;
  const exited = new Promise<ProcessExit>((resolve) => (resolveExit = resolve));
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    resolveExit({ code: null, signal: null });
  };
  return {
    transport,
    logTail: () => lines.join('\n'),
    onLog: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    exited,
    stop: () => transport.close(),
  };
}
