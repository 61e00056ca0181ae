// Server entries and hubs for the MCP tests: real servers (server-everything, server-filesystem,
// the test server of __fixtures__), real processes, a temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_MCP_TIMEOUT_MS, type McpRemoteServerConfig, type McpStdioServerConfig } from '../../config/mcp-config-types';
import { McpHub, type McpHubOptions } from './hub';

export const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const TEST_SERVER = resolve('src-main/core/extensions/mcp/__fixtures__/test-server.mjs');

const source = { kind: 'user' as const, file: '/test/mcp.json' };

export function stdioEntry(name: string, args: string[], extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig {
  return {
    name,
    type: 'stdio',
    command: process.execPath,
    args,
    env: {},
    sandbox: false,
    allowedDomains: [],
    source,
    timeoutMs: DEFAULT_MCP_TIMEOUT_MS,
    disabled: false,
    digest: `digest-${name}-${args.join(' ')}`,
    ...extra,
  };
}

export function httpEntry(name: string, url: string, extra: Partial<McpRemoteServerConfig> = {}): McpRemoteServerConfig {
  return { name, type: 'http', url, headers: {}, source, timeoutMs: DEFAULT_MCP_TIMEOUT_MS, disabled: false, digest: `digest-${name}-${url}`, ...extra };
}

export interface TestHub {
  hub: McpHub;
  folder: string;
  dataDir: string;
  dispose(): Promise<void>;
}

export function createTestHub(options: Partial<McpHubOptions> = {}): TestHub {
  const folder = mkdtempSync(join(tmpdir(), 'deepdesk-mcp-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-mcp-data-'));
  const hub = new McpHub({ folder, dataDir, env: process.env, clientInfo: { name: 'deepdesk-test', version: '0.0.0' }, ...options });
  return {
    hub,
    folder,
    dataDir,
    async dispose() {
      await hub.close();
      rmSync(folder, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface HttpServerProcess {
  port: number;
  stop(): Promise<void>;
}

/** A free port on 127.0.0.1 (closed again at once). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Starts a server process that listens on PORT and says so on stdout or stderr (`ready` matches the line). */
export async function startHttpServer(args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<HttpServerProcess> {
  const { spawn } = await import('node:child_process');
  const port = await freePort();
  const child = spawn(process.execPath, args.map((a) => a.replace('{PORT}', String(port))), { env: { ...process.env, PORT: String(port), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  await new Promise<void>((resolveReady, reject) => {
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      if (ready.test(seen)) resolveReady();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before it was ready: ${seen}`)));
  });
  return {
    port,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGKILL');
      }),
  };
}
