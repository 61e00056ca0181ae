// An MCP stdio server as a supervised process (core/process): inside the sandbox unless its
// entry says `"sandbox": false` (SPEC §10), and JSON-RPC over its pipes as the SDK's own
// stdio transport frames it (one message a line), each line bounded (stdio-lines.ts).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpStdioServerConfig } from '../../config/mcp-config-types';
import { startProcess } from '../../sandbox/supervisor';
import { loadMcpSdk, type McpSdk } from './sdk';
import { LineFramer, MCP_MAX_MESSAGE_DEPTH, overLimitMessage, tooDeepMessage } from './stdio-lines';
import { nestsDeeperThan } from '../../text/json-depth';
import type { ProcessExit, SupervisedProcess } from '../../sandbox/supervisor-types';
import { folderSandboxPolicy } from '../../sandbox/protected-entry-files';
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
  /** Set when the server broke the protocol's bounds (and was stopped for it): why, in one line. */
  protocolError(): string | undefined;
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
    sandbox: config.sandbox === false ? false : folderSandboxPolicy({ projectDir: context.folder, dataDir: context.dataDir, allowedDomains: config.allowedDomains, ...(config.readable ? { readablePaths: config.readable } : {}) }),
  });
  const transport = new SupervisedStdioTransport(server, sdk);
  return {
    transport,
    logTail: () => server.logTail(),
    protocolError: () => transport.protocolError,
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
  /** Why the server was stopped for breaking the protocol, if it was. */
  protocolError: string | undefined;
  private readonly framer = new LineFramer();
  private started = false;
  private closed = false;

  constructor(
    private readonly server: SupervisedProcess,
    private readonly sdk: Pick<McpSdk, 'JSONRPCMessageSchema' | 'serializeMessage'>,
  ) {}

  start(): Promise<void> {
    if (this.started) throw new Error('SupervisedStdioTransport already started');
    this.started = true;
    this.server.stdout.on('data', (chunk: Buffer) => {
      const { lines, overflow } = this.framer.push(chunk);
      for (const line of lines) if (this.protocolError === undefined) this.receive(line);
      if (overflow) this.broken(overLimitMessage());
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

  /** The server broke the protocol's bounds: it is stopped, and the reason reported once, by the close that follows (the hub reads protocolError). */
  private broken(why: string): void {
    if (this.protocolError !== undefined) return;
    this.protocolError = why;
    void this.close().catch(() => undefined);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      const value: unknown = JSON.parse(line);
      // Nested deeper than this, a result would overflow the stack of whatever walks it later.
      if (nestsDeeperThan(value, MCP_MAX_MESSAGE_DEPTH)) return this.broken(tooDeepMessage());
      message = this.sdk.JSONRPCMessageSchema.parse(value);
    } catch (err) {
      // A line that is not JSON-RPC (a server printing to stdout): reported, the rest still read.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.onmessage?.(message);
  }

  private fireClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.framer.clear();
    this.onclose?.();
  }
}
