// Issue 65: other agents as threads. A turn's first token through Deepdesk (`deepdesk run
// --agent`, the agent in its sandbox under the agent host, warm) beside the same agent driven
// directly by an ACP client, with the scripted ACP agent; and what the metering proxy adds to
// one streamed model call (a scripted Anthropic server, direct beside through the proxy's socket).

import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { startMeteringProxy } from '../../src-main/core/acp-client/metering-proxy';
import { anthropicMessageStream, startScriptedAnthropicServer } from '../../src-main/core/models/testing/scripted-anthropic-server';
import { errorText, formatMs, formatRatio, median } from './measure';
import type { BenchOptions } from './options';
import type { Report } from './report';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/deepdesk.mjs');
const SCRIPT = path.join(root, 'src-main/core/acp-client/testing/scripted-acp-agent.mjs');

/** ms from spawning `deepdesk run --json --agent scripted` to its first `text` event. */
function deepdeskFirstToken(folder: string, dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, 'run', '--json', '--folder', folder, '--data-dir', dataDir, '--agent', 'scripted', 'say first token'], { env: { ...process.env, OPENAI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let first: number | undefined;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (first === undefined && out.includes('"type":"text"')) first = performance.now() - started;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && first !== undefined ? resolve(first) : reject(new Error(`exit ${code}`))));
  });
}

/** ms from spawning the scripted agent to its first message chunk, driven directly by the SDK's client. */
async function directFirstToken(folder: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [SCRIPT], { cwd: folder, stdio: ['pipe', 'pipe', 'ignore'] });
  let first: number | undefined;
  let gotIt!: () => void;
  const got = new Promise<void>((r) => (gotIt = r));
  const app = client({ name: 'bench' }).onNotification(methods.client.session.update, ({ params }) => {
    if (first === undefined && params.update.sessionUpdate === 'agent_message_chunk') {
      first = performance.now() - started;
      gotIt();
    }
  });
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  try {
    await connection.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: folder, mcpServers: [] });
    void connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'say first token' }] });
    await got;
    return first!;
  } finally {
    connection.close();
    child.kill();
  }
}

/** One streamed Messages call: to a TCP URL, or to a Unix socket (the proxy's). */
function call(target: { port: number } | { socketPath: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest({ ...target, ...('port' in target ? { host: '127.0.0.1' } : {}), method: 'POST', path: '/v1/messages', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'claude-scripted', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
  });
}

async function benchFirstToken(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 65 · other agents: a turn’s first token, through Deepdesk beside direct');
  const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'bench-acp-')));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-acp-data-'));
  try {
    writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ agents: { added: [{ name: 'scripted', command: process.execPath, args: [SCRIPT], env: {} }] } }));
    // The first run starts the agent host; the timed ones find it running (warm), as a person's second run does.
    await deepdeskFirstToken(folder, dataDir);
    const ours: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < Math.max(3, options.runs); i++) {
      ours.push(await deepdeskFirstToken(folder, dataDir));
      direct.push(await directFirstToken(folder));
    }
    section.rows.push({
      name: `first token of a turn: \`deepdesk run --agent\` (the command, the host's session, the agent started in its sandbox, the turn) beside the same agent spawned and driven directly over ACP (median of ${ours.length}, interleaved)`,
      ours: formatMs(median(ours)),
      reference: formatMs(median(direct)),
      ratio: formatRatio(median(ours), median(direct)),
    });
    section.notes.push('the scripted ACP agent answers at once: the difference is what Deepdesk adds (the CLI process and its host request, the folder session, bubblewrap around the agent, the thread saved; an added command has no metering proxy), not a model');
  } finally {
    rmSync(folder, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchProxy(report: Report): Promise<void> {
  const section = report.section('Issue 65 · other agents: the metering proxy per model call');
  const server = await startScriptedAnthropicServer(Array.from({ length: 1000 }, () => anthropicMessageStream([{ text: 'hello there' }], 'end_turn')));
  const proxy = await startMeteringProxy({ upstream: server.url.replace(/\/v1$/, ''), agent: { name: 'bench', provider: 'anthropic' } });
  try {
    const port = Number(new URL(server.url).port);
    for (let i = 0; i < 10; i++) {
      await call({ port });
      await call({ socketPath: proxy.socket });
    }
    const direct: number[] = [];
    const through: number[] = [];
    for (let i = 0; i < 200; i++) {
      direct.push(await call({ port }));
      through.push(await call({ socketPath: proxy.socket }));
    }
    section.rows.push({
      name: 'a streamed Messages call to a local scripted server through the proxy (its usage read, a call recorded) beside direct (median of 200, interleaved)',
      ours: formatMs(median(through)),
      reference: formatMs(median(direct)),
      ratio: formatRatio(median(through), median(direct)),
    });
    section.rows.push({ name: 'added per call (median through − median direct)', ours: formatMs(median(through) - median(direct)) });
  } finally {
    await proxy.close();
    await server.close();
  }
}

export async function benchAcpAgents(report: Report, options: BenchOptions): Promise<void> {
  await benchFirstToken(report, options).catch((err: unknown) => report.section('Issue 65 · other agents: a turn’s first token, through Deepdesk beside direct').rows.push({ name: 'first token', ours: `error: ${errorText(err)}` }));
  await benchProxy(report).catch((err: unknown) => report.section('Issue 65 · other agents: the metering proxy per model call').rows.push({ name: 'proxy', ours: `error: ${errorText(err)}` }));
}
