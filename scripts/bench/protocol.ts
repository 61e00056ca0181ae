// Issue 54: the Agent Protocol. `deepdesk host --listen` as a person starts it, driven by the
// LangGraph SDK's Client: a run's first token (runs.stream with messages-tuple, its first
// `messages` event) beside the same run's first token over the host's local socket (the
// first `text` event `deepdesk run` is sent), interleaved; and a 10,000-message thread's
// getState beside a window's threads.get of it over the socket.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { newThreadState, type AgentEvent } from '../../src-main/core/agent/types';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import { startScriptedServer } from '../../src-main/core/models/testing/scripted-server';
import { ThreadStore } from '../../src-main/app/threads/thread-store';
import { HostClient } from '../../src-main/clients/host-client/client';
import { HostWindow } from '../../src-main/clients/host-client/host-window';
import { formatMb, formatMs, formatRatio, median, timeInterleaved, withTimeout } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';
import { threadMessages } from './thread-fixture';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/deepdesk.mjs');
const STATE_MESSAGES = 10_000;
/** Issue 66: getState of the long thread within this of its floor. */
const GET_STATE_RATIO = 2;
const ANSWER = 'Hello from Deepdesk: the first words of a longer answer that streams in pieces.';
const PROMPT = 'hi';
const ENV = { ...process.env, OPENAI_API_KEY: '' };

/** The floor of getState: the thread's stored rows read and parsed, and the messages written as one JSON. */
function storedRowsAsJson(dbFile: string, threadId: string): string {
  const db = openDatabase(dbFile);
  try {
    const rows = db.prepare<[string], { message_json: string }>('SELECT message_json FROM thread_messages WHERE thread_id = ? ORDER BY seq').all(threadId);
    return JSON.stringify({ values: { messages: rows.map((row) => JSON.parse(row.message_json) as unknown) } });
  } finally {
    db.close();
  }
}

/** `deepdesk host --listen` on `dataDir`: the host itself, serving the protocol; its URL. */
function listeningHost(folder: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [bin, 'host', '--listen', '127.0.0.1:0', '--folder', folder, '--data-dir', dataDir], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Agent Protocol: (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`deepdesk host --listen exited with ${code}: ${stderr.trim().split('\n')[0] ?? ''}`)));
  });
  return withTimeout(url, 20_000, 'deepdesk host --listen').then((u) => ({ child, url: u }));
}

/** Milliseconds to each run's first token, the two ways alternating (after one untimed round each). */
async function firstTokens(ways: Record<string, () => Promise<number>>, runs: number): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  for (let round = 0; round <= runs; round++) {
    for (const [name, way] of Object.entries(ways)) {
      const ms = await withTimeout(way(), 60_000, name);
      if (round > 0) times[name]!.push(ms);
    }
  }
  return times;
}

/** `only: 'get-state'`: issue 66's getState beside its floor (and the window's threads.get), not the first tokens. */
export async function benchProtocol(report: Report, options: BenchOptions, scope: { only?: 'get-state' } = {}): Promise<void> {
  const section = report.section('Issue 54 · the Agent Protocol');
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-protocol-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-protocol-data-'));
  const server = await startScriptedServer([]);
  let host: ChildProcess | undefined;
  let socket: HostClient | undefined;
  try {
    execFileSync('git', ['init', '-q'], { cwd: folder });
    // Both ways run on the data folder's model, as a person configures it.
    writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ model: 'openai-compatible:scripted-model', baseUrl: server.url }));
    const db = openDatabase(path.join(dataDir, 'deepdesk.db'));
    // A protocol thread's id is a UUID (as the reference checks it).
    const long = newThreadState(randomUUID());
    long.messages = threadMessages(STATE_MESSAGES);
    new ThreadStore(db).save(long, { folder, title: 'long' });
    db.close();

    progress('deepdesk host --listen: first token over the Agent Protocol and over the local socket');
    const listening = await listeningHost(folder, dataDir);
    host = listening.child;
    const key = execFileSync(process.execPath, [bin, 'host', '--print-key', '--data-dir', dataDir], { env: ENV, encoding: 'utf8' }).trim();
    const client = new Client({ apiUrl: listening.url, apiKey: key });
    socket = await HostClient.connect({ dataDir, client: 'bench', version: '', start: false });
    const viaSocket = socket;
    const overProtocol = async (): Promise<number> => {
      server.push({ text: ANSWER });
      const { thread_id: threadId } = await client.threads.create();
      const start = performance.now();
      let first: number | undefined;
      for await (const part of client.runs.stream(threadId, 'deepdesk', { input: { messages: [{ role: 'user', content: PROMPT }] }, streamMode: ['messages-tuple'] })) {
        if (part.event === 'error') throw new Error(`the run failed: ${JSON.stringify(part.data)}`);
        if (part.event === 'messages' && first === undefined) first = performance.now() - start;
      }
      if (first === undefined) throw new Error('the run streamed no messages event');
      return first;
    };
    const overSocket = async (): Promise<number> => {
      server.push({ text: ANSWER });
      const threadId = randomUUID();
      let first: number | undefined;
      let start = 0;
      // Listening first: a run's events may come before the request that starts it is answered.
      const ended = new Promise<void>((resolve, reject) => {
        const stop = viaSocket.onEvent((event, payload) => {
          const p = payload as { threadId?: string; event?: AgentEvent; state?: string; error?: string };
          if (p.threadId !== threadId) return;
          if (event === 'run.event' && p.event?.type === 'text' && first === undefined) first = performance.now() - start;
          if (event !== 'run.end') return;
          stop();
          if (p.state === 'done') resolve();
          else reject(new Error(`the run ended ${p.state ?? '?'}: ${p.error ?? ''}`));
        });
      });
      start = performance.now();
      await viaSocket.request('runs.start', {
        request: { folder, prompt: PROMPT, threadId, mode: 'ask', mounts: [], mcpConfig: [], trust: false, cwd: folder, env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: '' } },
        approve: 'deny',
        interactive: false,
        detach: false,
      });
      await ended;
      if (first === undefined) throw new Error('the run streamed no text');
      return first;
    };
    if (scope.only !== 'get-state') {
      const tokens = await firstTokens({ protocol: overProtocol, socket: overSocket }, Math.max(5, options.runs));
      const protocolMs = median(tokens.protocol!);
      const socketMs = median(tokens.socket!);
      section.rows.push({ name: 'first token over the local socket (runs.start → first text event, as `deepdesk run` sees it)', ours: formatMs(socketMs) });
      section.rows.push({ name: 'first token over the Agent Protocol (SDK runs.stream, messages-tuple → first messages event)', ours: formatMs(protocolMs), ratio: formatRatio(protocolMs, socketMs) });
    }

    progress(`getState of a ${STATE_MESSAGES.toLocaleString('en-US')}-message thread over the protocol, and a window's threads.get of it`);
    const window = await HostWindow.open({
      connect: { dataDir, client: 'bench', version: '', start: false },
      window: { folder, overrides: {}, mounts: [], mcpConfig: [], cwd: folder, env: { PATH: process.env.PATH ?? '' } },
    });
    try {
      const reads = await timeInterleaved(
        {
          getState: {
            // What a LangGraph client waits for: the answer taken and parsed (its size is read once, after the timed runs).
            run: async () => {
              const state = await client.threads.getState(long.id);
              return `${(state.values as { messages: unknown[] }).messages.length} messages`;
            },
          },
          floor: {
            run: async () => {
              const json = storedRowsAsJson(path.join(dataDir, 'deepdesk.db'), long.id);
              return `${formatMb(Buffer.byteLength(json))}`;
            },
          },
          window: {
            run: async () => {
              const view = (await window.handle('threads.get', { threadId: long.id })) as { items: unknown[] };
              return `${view.items.length} items, ${formatMb(Buffer.byteLength(JSON.stringify(view)))}`;
            },
          },
        },
        { runs: options.runs, budgetMs: 60_000 },
      );
      const failed = reads.getState!.error ?? reads.window!.error ?? reads.floor!.error;
      if (failed !== undefined) {
        section.rows.push({ name: `getState of a ${STATE_MESSAGES.toLocaleString('en-US')}-message thread`, ours: 'failed', result: failed });
      } else {
        const answerBytes = Buffer.byteLength(JSON.stringify(await client.threads.getState(long.id)));
        const windowMs = median(reads.window!.times);
        const stateMs = median(reads.getState!.times);
        section.rows.push({ name: `a window's threads.get over the socket, ${STATE_MESSAGES.toLocaleString('en-US')}-message thread (${reads.window!.detail})`, ours: formatMs(windowMs) });
        const floorMs = median(reads.floor!.times);
        section.rows.push({
          name: `getState over the Agent Protocol, the same thread (${reads.getState!.detail}, ${formatMb(answerBytes)}; ×${(stateMs / windowMs).toFixed(2)} the window's)`,
          ours: formatMs(stateMs),
          floor: `${formatMs(floorMs)} rows → JSON`,
          ratio: formatRatio(stateMs, floorMs),
          target: `≤ ${GET_STATE_RATIO}× floor`,
          result: verdict(stateMs <= GET_STATE_RATIO * floorMs),
        });
        section.notes.push(`getState's floor: the thread's stored rows read (SELECT + JSON.parse of each) and the same messages written as one JSON (${reads.floor!.detail}), in this process.`);
        section.notes.push('getState answers every message of the thread (LangGraph state has no pages); the window\'s threads.get answers its latest page of items.');
      }
    } finally {
      await window.close();
    }
    section.notes.push('ratio = over the protocol ÷ over the local socket, the same host (`deepdesk host --listen`) and the same scripted model, interleaved.');
  } finally {
    await socket?.close();
    if (host !== undefined && host.exitCode === null && host.signalCode === null) {
      const exited = new Promise((resolve) => host!.once('exit', resolve));
      host.kill('SIGTERM');
      await exited;
    }
    await server.close();
    for (const dir of [folder, dataDir]) rmSync(dir, { recursive: true, force: true });
  }
}
