// MCP over the supervised stdio transport, for real: the reference server
// `@modelcontextprotocol/server-everything` through the SDK's Client, inside the sandbox and
// outside it; a server that dies at start shows why in its log tail.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpStdioServerConfig } from '../../config/mcp-config-types';
import { detectSandbox } from '../../sandbox';
import { stopAllProcesses } from '../../sandbox/supervisor';
import { startStdioServer, type StdioServerContext } from './stdio-transport';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const available = await detectSandbox();

let root: string;
let context: StdioServerContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-mcp-stdio-')));
  const folder = join(root, 'project');
  const dataDir = join(root, 'data');
  mkdirSync(folder);
  mkdirSync(dataDir);
  context = { folder, dataDir, env: { ...process.env, OPENAI_API_KEY: 'sk-should-not-leak-1234' } };
});

afterEach(async () => {
  await stopAllProcesses();
  rmSync(root, { recursive: true, force: true });
});

function entry(overrides: Partial<McpStdioServerConfig>): McpStdioServerConfig {
  return {
    type: 'stdio',
    name: 'everything',
    source: { kind: 'user', file: join(root, 'data', 'mcp.json') },
    timeoutMs: 60_000,
    disabled: false,
    digest: 'test',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    env: {},
    sandbox: true,
    allowedDomains: [],
    ...overrides,
  };
}

for (const sandboxed of [true, false]) {
  describe.skipIf(sandboxed && !available.available)(`server-everything ${sandboxed ? 'in the sandbox' : 'unsandboxed'}`, () => {
    it('completes the handshake, lists its tools and answers a call; closing ends it', async () => {
      const server = await startStdioServer(entry({ sandbox: sandboxed }), context);
      const client = new Client({ name: 'deepdesk-test', version: '0.0.0' });
      let closed = false;
      await client.connect(server.transport);
      server.transport.onclose = ((previous) => () => {
        closed = true;
        previous?.();
      })(server.transport.onclose);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
      const result = await client.callTool({ name: 'echo', arguments: { message: 'hello over the pipes' } });
      expect(JSON.stringify(result.content)).toContain('hello over the pipes');
      await client.close();
      expect(await server.exited).toBeDefined();
      expect(closed).toBe(true);
    });
  });
}

describe('a server that fails', () => {
  it('dies at start: the client sees the transport close, the log tail says why', async () => {
    const script = "console.error('\\x1b[31mError:\\x1b[0m GITHUB_TOKEN is not set'); process.exit(1)";
    const server = await startStdioServer(entry({ name: 'broken', args: ['-e', script], sandbox: false }), context);
    const client = new Client({ name: 'deepdesk-test', version: '0.0.0' });
    await expect(client.connect(server.transport)).rejects.toThrow();
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.logTail()).toBe('Error: GITHUB_TOKEN is not set');
  });

  it('stop() during a call ends the server and rejects the call', async () => {
    const server = await startStdioServer(entry({ sandbox: false }), context);
    const client = new Client({ name: 'deepdesk-test', version: '0.0.0' });
    await client.connect(server.transport);
    const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 3 } }).then(
      () => 'answered',
      (err: unknown) => String(err),
    );
    await server.stop();
    expect(await call).toMatch(/Connection closed/);
    expect(await server.exited).toBeDefined();
  });
});
