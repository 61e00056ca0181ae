// Issue 98: a lighter host. The agent host's resident memory, idle after 20 runs of
// `deepdesk run` (20 finished threads, each run counting its request as every run does),
// beside the same host just started; and what starting a command's pty costs inside it
// (node-pty's `forkpty` copies the host's page tables) beside the same call in a small Node,
// in alternating batches. The host is the built one, started as a client starts it, with
// V8's inspector on a loopback port so that the bench can time `pty.spawn` in its own heap.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startScriptedServer } from '../../src-main/core/models/testing/scripted-server';
import { HostClient } from '../../src-main/clients/host-client/client';
import { cliEntry, defaultHostLaunch } from '../../src-main/clients/host-client/launch';
import { deepdesk } from './agent-host';
import { errorText, formatMb, formatMs, formatRatio, median } from './measure';
import { progress, verdict, type Report } from './report';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/deepdesk.mjs');
const THREADS = 20;
const RSS_TARGET_MB = 100;
const SPAWN_TARGET_MS = 1.5;
/** The host idles this long after its last run before its memory is read (V8's memory reducer runs within it). */
const SETTLE_MS = 12_000;
const BATCHES = 8;
const PER_BATCH = 10;

/** A process's resident memory and page tables, in bytes (Linux: /proc). */
function memoryOf(pid: number): { rss: number; pte: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), pte: kb('VmPTE') };
}

/**
 * `count` starts of `sh -c true` in a fresh pty, each timed from the call to its return (the
 * fork, in node-pty), waiting for each to exit before the next; node-pty is required from
 * `from` (the module the process already holds). A JSON array of milliseconds.
 */
const spawnBatch = (from: string, count: number): string => `(async () => {
  const pty = process.getBuiltinModule('node:module').createRequire(${JSON.stringify(from)})('node-pty');
  const times = [];
  for (let i = 0; i < ${count}; i++) {
    const at = performance.now();
    const p = pty.spawn('/bin/sh', ['-c', 'true'], { cols: 80, rows: 24, cwd: ${JSON.stringify(os.tmpdir())}, env: { PATH: '/usr/bin:/bin' } });
    times.push(performance.now() - at);
    await new Promise((done) => p.onExit(done));
  }
  return JSON.stringify(times);
})()`;

/** A Runtime.evaluate session with a process's inspector. */
async function inspector(url: string): Promise<{ evaluate: (expression: string) => Promise<string>; close: () => void }> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let next = 1;
  const waiting = new Map<number, (reply: { result?: { result?: { value?: unknown }; exceptionDetails?: { text?: string } }; error?: { message: string } }) => void>();
  socket.on('message', (data: Buffer) => {
    const reply = JSON.parse(data.toString()) as { id?: number };
    if (reply.id !== undefined) waiting.get(reply.id)?.(reply as never);
  });
  return {
    evaluate: (expression) =>
      new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, (reply) => {
          waiting.delete(id);
          const value = reply.result?.result?.value;
          if (typeof value === 'string') resolve(value);
          else reject(new Error(reply.error?.message ?? reply.result?.exceptionDetails?.text ?? 'no value'));
        });
        socket.send(JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, awaitPromise: true, returnByValue: true } }));
      }),
    close: () => socket.close(),
  };
}

/** The host of `dataDir`, started as a client starts it, plus the inspector (loopback, a free port); resolves with its inspector's URL. */
function startHost(dataDir: string): { child: ChildProcess; inspectorUrl: Promise<string> } {
  const launch = defaultHostLaunch(dataDir);
  const child = spawn(launch.file, ['--inspect=127.0.0.1:0', ...launch.args, '--idle-seconds', '3600'], { env: launch.env, stdio: ['ignore', 'ignore', 'pipe'] });
  const inspectorUrl = new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const url = /Debugger listening on (ws:\/\/\S+)/.exec(err)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`the host exited (${code}): ${err.trim().split('\n').at(-1) ?? ''}`)));
  });
  return { child, inspectorUrl };
}

/** A small Node that times the same batches on a line on stdin, one JSON line each. */
function smallNode(): { batch: () => Promise<number[]>; pte: () => number; stop: () => void } {
  const script = `const { createInterface } = require('node:readline');
createInterface({ input: process.stdin }).on('line', async () => process.stdout.write(await ${spawnBatch(path.join(root, 'package.json'), PER_BATCH)} + '\\n'));`;
  const child = spawn(process.execPath, ['-e', script], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  const lines: Array<(line: string) => void> = [];
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      lines.shift()?.(line);
    }
  });
  return {
    batch: () =>
      new Promise((resolve) => {
        lines.push((line) => resolve(JSON.parse(line) as number[]));
        child.stdin!.write('go\n');
      }),
    pte: () => memoryOf(child.pid!).pte,
    stop: () => void child.kill(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Connects to the host once it answers (never starting another), then closes. */
async function connected(dataDir: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; await sleep(100)) {
    try {
      await (await HostClient.connect({ dataDir, client: 'bench', version: '', start: false })).close();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
  }
}

export async function benchHostMemory(report: Report): Promise<void> {
  const section = report.section('Issue 98 · a lighter host');
  if (os.platform() !== 'linux') {
    section.rows.push({ name: 'the host’s memory and pty.spawn', ours: 'skipped', result: 'reads /proc: Linux only' });
    return;
  }
  try {
    cliEntry();
  } catch (err) {
    section.rows.push({ name: 'the host’s memory and pty.spawn', ours: 'not built', result: errorText(err) });
    return;
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-host-memory-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-host-memory-data-'));
  const server = await startScriptedServer([]);
  const host = startHost(dataDir);
  const floor = smallNode();
  let session: Awaited<ReturnType<typeof inspector>> | undefined;
  try {
    const url = await host.inspectorUrl;
    const pid = host.child.pid!;
    // Started: a client connected once (the host's socket up, no thread open).
    await connected(dataDir);
    await sleep(SETTLE_MS);
    const started = memoryOf(pid);
    progress(`the agent host: ${THREADS} runs of deepdesk run, then idle ${SETTLE_MS / 1000} s`);
    for (let i = 0; i < THREADS; i++) {
      server.push({ text: `Done: answer ${i}.` });
      await deepdesk(bin, ['run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, `Say hi (${i}).`], {});
    }
    await sleep(SETTLE_MS);
    const idle = memoryOf(pid);
    section.rows.push({
      name: `the agent host’s resident memory, idle with ${THREADS} finished threads (page tables)`,
      ours: `${formatMb(idle.rss)} (${formatMb(idle.pte)})`,
      floor: `${formatMb(started.rss)} just started`,
      ratio: formatRatio(idle.rss, started.rss),
      target: `≤ ${RSS_TARGET_MB} MB`,
      result: verdict(idle.rss <= RSS_TARGET_MB * 1024 * 1024),
    });

    progress(`pty.spawn in the host beside a small Node: ${BATCHES} alternating batches of ${PER_BATCH}`);
    session = await inspector(url);
    const inHost: number[] = [];
    const inSmall: number[] = [];
    const batch = spawnBatch(cliEntry(), PER_BATCH);
    for (let round = 0; round <= BATCHES; round++) {
      const hostTimes = JSON.parse(await session.evaluate(batch)) as number[];
      const smallTimes = await floor.batch();
      // The first round is untimed: node-pty's first load, the caches.
      if (round === 0) continue;
      inHost.push(...hostTimes);
      inSmall.push(...smallTimes);
    }
    const a = median(inHost);
    const b = median(inSmall);
    section.rows.push({
      name: `a command’s \`pty.spawn\` in the host, idle with ${THREADS} finished threads (${inHost.length} calls; page tables ${formatMb(memoryOf(pid).pte)} vs ${formatMb(floor.pte())})`,
      ours: formatMs(a),
      floor: `${formatMs(b)} small Node`,
      ratio: formatRatio(a, b),
      target: `≤ ${SPAWN_TARGET_MS} ms`,
      result: verdict(a <= SPAWN_TARGET_MS),
    });
    section.notes.push(
      `the host as a client starts it (${defaultHostLaunch(dataDir).args[0]}), with --inspect on a loopback port for the spawn row; memory read from /proc after ${SETTLE_MS / 1000} s idle; machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores at the end`,
    );
  } catch (err) {
    section.rows.push({ name: 'the host’s memory and pty.spawn', ours: `error: ${errorText(err)}` });
  } finally {
    session?.close();
    floor.stop();
    host.child.kill('SIGTERM');
    await server.close();
    for (const dir of [folder, dataDir]) fs.rmSync(dir, { recursive: true, force: true });
  }
}
