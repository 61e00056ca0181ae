// Issue 39: the agent host. `deepdesk run "hi"` end to end with no host running (cold: the
// command starts one) and with one running (warm), beside the `run` of the build before the
// host (today's floor: it assembled the run in its own process), interleaved; an editor's
// first answer over `deepdesk acp` (its agent in the host now) beside that build's; a window's
// attach (open + threads.get over the host's socket) to a thread of 10,000 messages; and
// what one more client watching a run adds per streamed token.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { newThreadState } from '../../src-main/core/agent/types';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import { startScriptedServer, type ScriptedServer } from '../../src-main/core/models/testing/scripted-server';
import { ThreadStore } from '../../src-main/app/threads/thread-store';
import { HostClient } from '../../src-main/clients/host-client/client';
import { HostWindow } from '../../src-main/clients/host-client/host-window';
import { formatMs, formatRatio, median, timeInterleaved, timeRuns } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';
import { dataWithThreads, threadMessages } from './thread-fixture';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/deepdesk.mjs');
/** The last commit before the agent host: its `run` assembled the run in-process. */
const PRE_HOST_COMMIT = 'dcf9e40';
const preHostDir = path.join(root, '.bench', 'pre-host');
const ATTACH_MESSAGES = 10_000;
const STREAMED_TOKENS = 4_000;
/** Issue 98: a warm `deepdesk run "hi"` (host up, instant model) within this many times `deepdesk --version` in the same run (issue 66's 100 ms is met). */
const WARM_RUN_TARGET_RATIO = 1.5;

/** `binary ARGS…` to its end: its stdout, or its first line of stderr as the error. */
export function deepdesk(binary: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binary, ...args], { env: { ...process.env, OPENAI_API_KEY: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}: ${err.trim().split('\n')[0] ?? ''}`))));
  });
}

function nodeNothing(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve('') : reject(new Error(`exit ${code}`))));
  });
}

/** `deepdesk acp` started as an editor starts it, driven by the SDK's client to its first answer. */
async function editorFirstAnswer(binary: string, folder: string, dataDir: string, baseUrl: string): Promise<string> {
  const child = spawn(process.execPath, [binary, 'acp', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', baseUrl], {
    env: { ...process.env, OPENAI_API_KEY: '' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const editor = client({ name: 'bench-editor' }).connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  try {
    await editor.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await editor.agent.request(methods.agent.session.new, { cwd: folder, mcpServers: [] });
    const { stopReason } = await editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    if (stopReason !== 'end_turn') throw new Error(`the prompt ended ${stopReason}`);
    return stopReason;
  } finally {
    editor.close();
    child.stdin!.end();
    if (child.exitCode === null) await new Promise((done) => child.once('close', done));
  }
}

/** The build before the host, in a worktree of its own (made once; node_modules shared). */
function preHostBuild(): string | undefined {
  const cli = path.join(preHostDir, 'bin', 'deepdesk.mjs');
  if (existsSync(path.join(preHostDir, 'out', 'main', 'cli.js'))) return cli;
  try {
    rmSync(preHostDir, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'prune'], { cwd: root, stdio: 'ignore' });
    execFileSync('git', ['worktree', 'add', '--detach', preHostDir, PRE_HOST_COMMIT], { cwd: root, stdio: 'ignore' });
    symlinkSync(path.join(root, 'node_modules'), path.join(preHostDir, 'node_modules'));
    execFileSync(path.join(root, 'node_modules', '.bin', 'electron-vite'), ['build'], { cwd: preHostDir, stdio: 'ignore' });
    return cli;
  } catch {
    return undefined;
  }
}

const MANY_THREADS = 10_000;

/** Now, in milliseconds since the epoch with a fraction: comparable with the host's log and records. */
const epochMs = (): number => performance.timeOrigin + performance.now();

/** One timed warm run's moments (epoch ms): spawned, the model asked, the command's exit. */
interface WarmMoments {
  spawned: number;
  modelAsked?: number;
  exited: number;
}

/**
 * A Node that loads what `deepdesk run` loads before it connects (the CLI and its run command,
 * with the compile cache as bin/deepdesk.mjs keeps it) and does nothing else.
 */
function runModulesOnly(): Promise<string> {
  const cli = path.join(root, 'out', 'main', 'cli.js');
  const chunk = /import\("\.\/(chunks\/run-command-[^"]+)"\)/.exec(readFileSync(cli, 'utf8'))?.[1];
  if (chunk === undefined) return Promise.reject(new Error('the run command is not a chunk of out/main/cli.js'));
  const script = `import module from 'node:module'; module.enableCompileCache?.(); await import(${JSON.stringify(pathToFileURL(cli).href)}); await import(${JSON.stringify(pathToFileURL(path.join(root, 'out', 'main', chunk)).href)});`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve('') : reject(new Error(`exit ${code}`))));
  });
}

/**
 * Where a warm run's time goes, from what each side leaves: the host's log says when it
 * welcomed the client, the scripted server when the model was asked, the run's record when
 * the run ended (its answer saved), and the command's exit ends it. Medians of each phase.
 */
function warmSplit(dataDir: string, runs: readonly WarmMoments[]): Record<'connected' | 'toModel' | 'modelToEnd' | 'endToExit', number[]> | undefined {
  const attached = [...readFileSync(path.join(dataDir, 'host', 'host.log'), 'utf8').matchAll(/^(\S+Z) \[\d+\] c\d+: run \S+ attached$/gm)].map((m) => Date.parse(m[1]!));
  const db = openDatabase(path.join(dataDir, 'deepdesk.db'));
  let ends: number[];
  try {
    ends = db.prepare<[], { ended_at: string }>('SELECT ended_at FROM host_runs WHERE ended_at IS NOT NULL').all().map((row) => Date.parse(row.ended_at));
  } finally {
    db.close();
  }
  const split = { connected: [] as number[], toModel: [] as number[], modelToEnd: [] as number[], endToExit: [] as number[] };
  for (const run of runs) {
    // The log and the records have whole milliseconds: a moment may read up to 1 ms early.
    const within = (t: number) => t >= Math.floor(run.spawned) && t <= run.exited;
    const welcome = attached.filter(within).at(-1);
    const ended = ends.filter(within).at(-1);
    if (welcome === undefined || ended === undefined || run.modelAsked === undefined) return undefined;
    split.connected.push(welcome - run.spawned);
    split.toModel.push(run.modelAsked - welcome);
    split.modelToEnd.push(ended - run.modelAsked);
    split.endToExit.push(run.exited - ended);
  }
  return split;
}

/** `only: 'warm-run'`: issue 66's warm run beside its floors, and nothing else of the suite. */
export async function benchAgentHost(report: Report, options: BenchOptions, scope: { only?: 'warm-run' } = {}): Promise<void> {
  const section = report.section('Issue 39 · the agent host');
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-host-'));
  const warmData = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-host-data-'));
  // The warm run's time must not grow with the threads the data folder holds.
  const manyData = dataWithThreads(folder, Array.from({ length: MANY_THREADS }, (_, i) => ({ id: `bench-thread-${i}`, messages: threadMessages(4) })));
  const colds: string[] = [];
  /** A data folder of its own for one timed run (removed at the end). */
  const freshDataDir = (kind: string): string => {
    const dataDir = mkdtempSync(path.join(tmpdir(), `deepdesk-bench-${kind}-`));
    colds.push(dataDir);
    return dataDir;
  };
  const server: ScriptedServer = await startScriptedServer([], {});
  const answer = () => server.push(...Array.from({ length: 1 }, () => ({ text: 'hi' })));
  // The warm runs' moments, for the split of where their time goes (the untimed first one dropped).
  const warmMoments: WarmMoments[] = [];
  const warmRun = async (): Promise<string> => {
    const moments: WarmMoments = { spawned: epochMs(), exited: 0 };
    warmMoments.push(moments);
    server.push(() => {
      moments.modelAsked = epochMs();
      return { text: 'hi' };
    });
    const out = await deepdesk(bin, flags(warmData), {});
    moments.exited = epochMs();
    return out;
  };
  const flags = (dataDir: string) => ['run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, 'hi'];
  // A cold host would wait 30 s for a client before it stops; these stop at once.
  const env = { DEEPDESK_HOST_IDLE_SECONDS: '0.5' };
  try {
    const onlyWarm = scope.only === 'warm-run';
    progress(onlyWarm ? 'deepdesk run "hi": host warm, beside its floors' : 'deepdesk run "hi": host cold, warm, and the build before the host');
    const old = onlyWarm ? undefined : preHostBuild();
    const contenders: Parameters<typeof timeInterleaved>[0] = {
      ...(onlyWarm ? {} : { cold: { before: answer, run: () => deepdesk(bin, flags(freshDataDir('cold')), env) } }),
      warm: { run: warmRun },
      warmMany: { before: answer, run: () => deepdesk(bin, flags(manyData), {}) },
      // Issue 66's floors: a Node that does nothing, and the command that loads only the CLI.
      node: { run: () => nodeNothing() },
      version: { run: () => deepdesk(bin, ['--version'], {}) },
      // Where a warm run's client start goes: what it loads before it connects.
      modules: { run: () => runModulesOnly() },
      ...(old !== undefined ? { today: { before: answer, run: () => deepdesk(old, flags(freshDataDir('old')), {}) } } : {}),
    };
    // The warm host is up before the first timed run (the untimed round starts it).
    const results = await timeInterleaved(contenders, { runs: Math.max(5, options.runs), budgetMs: 60_000 });
    const floor = results.today && results.today.error === undefined ? median(results.today.times) : undefined;
    const nodeMs = results.node!.error === undefined ? median(results.node!.times) : undefined;
    const versionMs = results.version!.error === undefined ? median(results.version!.times) : undefined;
    section.rows.push({
      name: 'floors: `node -e 0` / `deepdesk --version`',
      ours: `${nodeMs !== undefined ? formatMs(nodeMs) : results.node!.error} / ${versionMs !== undefined ? formatMs(versionMs) : results.version!.error}`,
      target: '—',
    });
    const warm = results.warm!;
    if (warm.error === undefined && versionMs !== undefined) {
      const ms = median(warm.times);
      section.rows.push({
        name: 'deepdesk run "hi", host warm, beside `deepdesk --version` in the same run (issues 66 and 98)',
        ours: `${formatMs(ms)} (+${formatMs(ms - versionMs)})`,
        floor: `${formatMs(versionMs)} --version`,
        ratio: formatRatio(ms, versionMs),
        target: `≤ ${WARM_RUN_TARGET_RATIO}× --version`,
        result: verdict(ms <= WARM_RUN_TARGET_RATIO * versionMs),
      });
      const many = results.warmMany!;
      if (many.error !== undefined) section.rows.push({ name: `deepdesk run "hi", host warm, ${MANY_THREADS.toLocaleString('en-US')} threads`, ours: 'failed', result: many.error });
      else {
        const manyMs = median(many.times);
        section.rows.push({
          name: `the same with ${MANY_THREADS.toLocaleString('en-US')} threads in the data folder, beside one (issue 66: independent of the number of threads)`,
          ours: formatMs(manyMs),
          floor: `${formatMs(ms)} one thread`,
          ratio: formatRatio(manyMs, ms),
          target: '≤ 1.2×',
          result: verdict(manyMs <= 1.2 * ms),
        });
      }
      const modulesMs = results.modules!.error === undefined ? median(results.modules!.times) : undefined;
      const split = warmSplit(warmData, warmMoments.slice(1));
      if (split !== undefined && modulesMs !== undefined) {
        const connected = median(split.connected);
        section.rows.push({
          name: '  where it goes: client start (node, then the run’s modules) · connect · host to the model · model and its answer saved · the end (ledger, fsync, run.end, exit)',
          ours: [
            `${formatMs(nodeMs ?? 0)} + ${formatMs(Math.max(0, modulesMs - (nodeMs ?? 0)))}`,
            formatMs(Math.max(0, connected - modulesMs)),
            formatMs(median(split.toModel)),
            formatMs(median(split.modelToEnd)),
            formatMs(median(split.endToExit)),
          ].join(' · '),
          target: '—',
        });
      } else section.rows.push({ name: '  where it goes', ours: 'failed', result: results.modules!.error ?? 'a run left no welcome, model call or end to read' });
    } else if (warm.error !== undefined) section.rows.push({ name: 'deepdesk run "hi", host warm', ours: 'failed', result: warm.error });
    if (onlyWarm) return;
    for (const name of ['cold', 'warm'] as const) {
      const r = results[name]!;
      if (r.error !== undefined) {
        section.rows.push({ name: `deepdesk run "hi", host ${name}`, ours: 'failed', result: r.error });
        continue;
      }
      const ms = median(r.times);
      section.rows.push({
        name: `deepdesk run "hi" end to end, host ${name}`,
        ours: formatMs(ms),
        ...(floor !== undefined ? { floor: formatMs(floor), ratio: formatRatio(ms, floor) } : {}),
        ...(name === 'warm' && floor !== undefined ? { target: '< today', result: verdict(ms < floor) } : {}),
      });
    }
    section.notes.push(
      floor !== undefined
        ? `The floor column is \`deepdesk run "hi"\` (and \`deepdesk acp\` for the editor's row) of commit ${PRE_HOST_COMMIT} (the run assembled in its own process), built in .bench/pre-host and run interleaved with ours.`
        : `The build before the host (${PRE_HOST_COMMIT}) could not be made in .bench/pre-host: ${results.today?.error ?? 'git worktree or the build failed'}.`,
    );

    progress(`a window attaching to a thread of ${ATTACH_MESSAGES.toLocaleString('en-US')} messages`);
    const db = openDatabase(path.join(warmData, 'deepdesk.db'));
    const state = newThreadState('bench-long-thread');
    state.messages = threadMessages(ATTACH_MESSAGES);
    new ThreadStore(db).save(state, { folder, title: 'long' });
    db.close();
    const attachTimes = await timeRuns(
      async () => {
        const window = await HostWindow.open({
          connect: { dataDir: warmData, client: 'bench', version: '' },
          window: { folder, overrides: { model: 'openai-compatible:scripted-model', baseUrl: server.url }, mounts: [], mcpConfig: [], cwd: folder, env: { PATH: process.env.PATH ?? '' } },
        });
        try {
          const view = (await window.handle('threads.get', { threadId: state.id })) as { items: unknown[] };
          if (view.items.length === 0) throw new Error('the thread came back empty');
        } finally {
          await window.close();
        }
      },
      { runs: options.runs, budgetMs: 30_000 },
    );
    section.rows.push({ name: `a window's attach (open over the socket + threads.get) to a ${ATTACH_MESSAGES.toLocaleString('en-US')}-message thread, host warm`, ours: formatMs(median(attachTimes)) });

    progress('an editor over deepdesk acp: its first answer, host warm, and the build before the host');
    const editorTimes = await timeInterleaved(
      {
        warm: { before: answer, run: () => editorFirstAnswer(bin, folder, warmData, server.url) },
        ...(old !== undefined ? { today: { before: answer, run: () => editorFirstAnswer(old, folder, freshDataDir('old'), server.url) } } : {}),
      },
      { runs: Math.max(5, options.runs), budgetMs: 60_000 },
    );
    const editorWarm = editorTimes.warm!;
    if (editorWarm.error !== undefined) {
      section.rows.push({ name: 'an editor’s first answer over deepdesk acp, host warm', ours: 'failed', result: editorWarm.error });
    } else {
      const ms = median(editorWarm.times);
      const before = editorTimes.today && editorTimes.today.error === undefined ? median(editorTimes.today.times) : undefined;
      section.rows.push({
        name: 'an editor’s first answer over deepdesk acp (start, initialize, session/new, prompt "hi"), host warm',
        ours: formatMs(ms),
        ...(before !== undefined ? { floor: formatMs(before), ratio: formatRatio(ms, before) } : {}),
      });
    }

    progress('one more client watching a run, per streamed token');
    const streamText = 'tok '.repeat(STREAMED_TOKENS);
    const watchRun = async (extraWatchers: number): Promise<string> => {
      server.push({ text: streamText, pace: { chunkChars: 4, chunksPerSecond: 1_000_000 } });
      const starter = await HostClient.connect({ dataDir: warmData, client: 'bench', version: '' });
      const watchers = await Promise.all(Array.from({ length: extraWatchers }, () => HostClient.connect({ dataDir: warmData, client: 'bench', version: '' })));
      const threadId = `bench-stream-${Math.random().toString(36).slice(2)}`;
      const attached: Array<Promise<unknown>> = [];
      try {
        const ended = new Promise<void>((resolve) => starter.onEvent((event, payload) => event === 'run.end' && (payload as { threadId: string }).threadId === threadId && resolve()));
        const watch = () => watchers.map(
          (w) =>
            new Promise<void>((resolve) => {
              w.onEvent((event, payload) => event === 'run.end' && (payload as { threadId: string }).threadId === threadId && resolve());
              // A run that ended before this client attached: its end comes with the events kept.
              attached.push(w.request<{ end?: unknown }>('runs.attach', { threadId, afterSeq: 0 }).then((r) => r.end !== undefined && resolve()));
            }),
        );
        await starter.request('runs.start', {
          request: { folder, prompt: 'stream', threadId, model: 'openai-compatible:scripted-model', baseUrl: server.url, mode: 'ask', mounts: [], mcpConfig: [], trust: false, cwd: folder, env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: '' } },
          approve: 'deny',
          interactive: false,
          detach: false,
        });
        const seen = watch();
        await Promise.all([ended, ...seen, ...attached]);
        return `${STREAMED_TOKENS} tokens`;
      } finally {
        await Promise.all([starter, ...watchers].map((c) => c.close()));
      }
    };
    const watched = await timeInterleaved({ one: { run: () => watchRun(0) }, two: { run: () => watchRun(1) } }, { runs: Math.max(5, options.runs), budgetMs: 60_000 });
    if (watched.one!.error === undefined && watched.two!.error === undefined) {
      const one = median(watched.one!.times);
      const two = median(watched.two!.times);
      section.rows.push({ name: `a run streaming ${STREAMED_TOKENS.toLocaleString('en-US')} tokens, one client`, ours: formatMs(one) });
      section.rows.push({ name: 'the same with one more client attached', ours: formatMs(two), ratio: formatRatio(two, one) });
      section.rows.push({ name: 'what the extra client adds per streamed token', ours: `${formatMs(Math.max(0, two - one) / STREAMED_TOKENS)}/token` });
    } else {
      section.rows.push({ name: 'an extra client per streamed token', ours: 'failed', result: watched.one!.error ?? watched.two!.error ?? '' });
    }
  } finally {
    await server.close();
    // The warm host stops once its data folder is gone.
    for (const dir of [folder, warmData, manyData, ...colds]) rmSync(dir, { recursive: true, force: true });
  }
}
