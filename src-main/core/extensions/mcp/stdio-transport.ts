// An MCP stdio server as a supervised process (core/process): inside the sandbox unless its
// entry says `"sandbox": false` (SPEC §10), and JSON-RPC over its pipes as the SDK's own
// stdio transport frames it (one message a line).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpStdioServerConfig } from '../../config/mcp-config-types';
import { startProcess } from '../../process/supervisor';
import { loadMcpSdk, type McpSdk } from './sdk';
import type { ProcessExit, SupervisedProcess } from '../../process/types';
import { folderSandboxPolicy } from '../../trust/protected-entry-files';
import type { LiveCheck } from '../../sandbox/types';

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
  /** What it did to git's files in the folder, checked and undone now (SupervisedProcess.checkEffects). */
  checkEffects(): Promise<LiveCheck>;
}

/**
 * Starts the server. Rejects when it cannot be started at all (the sandbox is wanted and
 * missing, the command does not exist outside the sandbox); a server that starts and then
 * fails shows it by its transport closing, with its log tail.
 */
export async function startStdioServer(config: McpStdioServerConfig, context: StdioServerContext): Promise<StdioServerProcess> {
  const sdk = await loadMcpSdk();
  const server = await startProcess({
    command: config.command,
    args: config.args,
    cwd: context.folder,
    env: config.env,
    baseEnv: context.env,
    // What the folder's configuration runs stays read-only for the server too (SPEC §9).
    sandbox: config.sandbox === false ? false : folderSandboxPolicy({ projectDir: context.folder, dataDir: context.dataDir, allowedDomains: config.allowedDomains }),
  });
  return {
    transport: new SupervisedStdioTransport(server, sdk),
    logTail: () => server.logTail(),
    onLog: (listener) => server.onLog(listener),
    exited: server.exited,
    stop: () => server.stop(),
    checkEffects: () => server.checkEffects(),
  };
}

/** The SDK's Transport over a supervised process's stdin and stdout. */
export class SupervisedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly readBuffer: InstanceType<McpSdk['ReadBuffer']>;
  private started = false;
  private closed = false;

  constructor(
    private readonly server: SupervisedProcess,
    private readonly sdk: Pick<McpSdk, 'ReadBuffer' | 'serializeMessage'>,
  ) {
    this.readBuffer = new sdk.ReadBuffer();
  }

  start(): Promise<void> {
    if (this.started) throw new Error('SupervisedStdioTransport already started');
    this.started = true;
    this.server.stdout.on('data', (chunk: Buffer) => {
      this.readBuffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.readBuffer.readMessage();
        } catch (err) {
          // A line that is not JSON-RPC (a server printing to stdout): reported, the rest still read.
          this.onerror?.(err instanceof Error ? err : new Error(String(err)));
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    this.server.stdout.on('error', (err: Error) => this.onerror?.(err));
    this.server.stdin.on('error', (err: Error) => this.onerror?.(err));
    void this.server.exited.then(() => this.fireClose());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || !this.server.stdin.writable) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (this.server.stdin.write(this.sdk.serializeMessage(message))) resolve();
      else this.server.stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    await this.server.stop();
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.readBuffer.clear();
    this.onclose?.();
  }
}
