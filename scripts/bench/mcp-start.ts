// Issue 18: how long an MCP stdio server takes from start to its first tools/list answer:
// the reference server `server-everything` through startStdioServer inside the sandbox,
// outside it, and through the SDK's own StdioClientTransport (no supervisor: the floor).
// Rounds interleave the three so that load from elsewhere falls on all alike; closing a
// server is not timed.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpStdioServerConfig } from '../../src-main/core/config/mcp-config-types';
import { startStdioServer } from '../../src-main/core/extensions/mcp/stdio-transport';
import { stopAllProcesses } from '../../src-main/core/sandbox/supervisor';
import { detectSandbox } from '../../src-main/core/sandbox';
import { errorText, formatMs, formatRatio, median, withTimeout } from './measure';
import type { BenchOptions } from './options';
import { progress, type Report } from './report';

const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

interface Started {
  transport: Transport;
  close(): Promise<void>;
}

/** Start to the first tools/list answer, in ms; the server is closed afterwards (untimed). */
async function timeToTools(start: () => Promise<Started>): Promise<number> {
  const t0 = performance.now();
  const started = await start();
  const client = new Client({ name: 'deepdesk-bench', version: '0.0.0' });
  await client.connect(started.transport);
  const { tools } = await client.listTools();
  const ms = performance.now() - t0;
  if (!tools.some((t) => t.name === 'echo')) throw new Error('server-everything listed no echo tool');
  await client.close();
  await started.close();
  return ms;
}

export async function benchMcpStart(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 18 · MCP stdio server start (server-everything, start → first tools/list answer)');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-mcp-'));
  const folder = fs.realpathSync(root);
  const dataDir = path.join(folder, 'data');
  fs.mkdirSync(dataDir);
  const availability = await detectSandbox();
  const entry = (sandbox: boolean): McpStdioServerConfig => ({
    type: 'stdio',
    name: 'everything',
    source: { kind: 'user', file: path.join(dataDir, 'mcp.json') },
    timeoutMs: 60_000,
    disabled: false,
    digest: 'bench',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    env: {},
    sandbox,
    allowedDomains: [],
  });
  const supervised = (sandbox: boolean) => async (): Promise<Started> => {
    const server = await startStdioServer(entry(sandbox), { folder, dataDir, env: process.env });
    return { transport: server.transport, close: () => server.stop() };
  };
  const contenders: Record<string, () => Promise<Started>> = {
    sdk: () => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], cwd: folder, stderr: 'ignore' });
      return Promise.resolve({ transport, close: () => transport.close() });
    },
    unsandboxed: supervised(false),
    ...(availability.available ? { sandboxed: supervised(true) } : {}),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  const runs = Math.max(options.runs, 5);
  try {
    progress(`MCP stdio server start, ${runs} rounds`);
    let spent = 0;
    // Round 0 warms up (file cache, the login shell's PATH) and is not kept.
    for (let round = 0; round <= runs && (round <= 2 || spent < 60_000); round++) {
      for (const [name, start] of Object.entries(contenders)) {
        const ms = await withTimeout(timeToTools(start), 60_000, `${name} server start`);
        if (round > 0) {
          times[name]!.push(ms);
          spent += ms;
        }
      }
    }
    const sdk = median(times.sdk!);
    const plain = median(times.unsandboxed!);
    section.rows.push({ name: `SDK StdioClientTransport, no supervisor (${times.sdk!.length} runs)`, ours: formatMs(sdk) });
    section.rows.push({
      name: `startStdioServer unsandboxed vs the SDK's transport (${times.unsandboxed!.length} runs)`,
      ours: `${formatMs(plain)} (+${formatMs(plain - sdk)})`,
      ratio: formatRatio(plain, sdk),
    });
    if (times.sandboxed) {
      const boxed = median(times.sandboxed);
      section.rows.push({
        name: `startStdioServer sandboxed vs unsandboxed (${times.sandboxed.length} runs)`,
        ours: `${formatMs(boxed)} vs ${formatMs(plain)} (+${formatMs(boxed - plain)})`,
        ratio: formatRatio(boxed, plain),
      });
    } else {
      section.rows.push({ name: 'startStdioServer sandboxed', ours: `no sandbox here: ${availability.available ? 'it could not be made' : availability.reason}` });
    }
    section.notes.push('no target in the issue; once per server and folder open, servers start in parallel');
    section.notes.push(`unsandboxed adds the scrubbed environment (login PATH asked once per process) and the watchdog registration; sandboxed adds prepare (policy, temp folder, git state) and bwrap; machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores at the end`);
  } catch (err) {
    section.rows.push({ name: 'MCP stdio server start', ours: `error: ${errorText(err)}` });
  } finally {
    await stopAllProcesses();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
