// Issue 11 (Trust II): what the OS sandbox costs per command. The same LocalShellBackend
// runs `true` and an `ls -R` of 200 files with and without the sandbox, interleaved in one
// run, and the agent loop runs execute steps (as in auto mode: no approvals) both ways.

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as pty from 'node-pty';
import { createAgentDefinition } from '../../src-main/core/agent/create-agent';
import { McpHub } from '../../src-main/core/extensions/mcp/hub';
import { EVERYTHING, stdioEntry } from '../../src-main/core/extensions/mcp/hub.test-support';
import { runAgent } from '../../src-main/core/agent/loop';
import type { PermissionRule } from '../../src-main/core/agent/permissions/rules';
import { newThreadState } from '../../src-main/core/agent/types';
import { LocalShellBackend } from '../../src-main/core/backends/filesystem/local-shell';
import { resolveShell } from '../../src-main/core/process/pty-exec';
import { buildCommandEnv } from '../../src-main/core/process/shell-env';
import { DONE_OSC } from '../../src-main/core/process/status-report';
import { createDefaultMounts } from '../../src-main/core/backends/mounts/mounts';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import type { ChatModel, ModelEvent, ModelRequest } from '../../src-main/core/models/types';
import { createSandbox, detectSandbox } from '../../src-main/core/sandbox';
import type { Sandbox } from '../../src-main/core/sandbox/types';
import { ReadGuard } from '../../src-main/core/tools/read-guard';
import { findBwrap, SANDBOX_MAX_PROCESSES } from '../../src-main/core/sandbox/bwrap';
import { seccompFilter, withPrelude } from '../../src-main/core/sandbox/seccomp';
import { createWriteLayer, discardLayer, writeLayerTools } from '../../src-main/core/sandbox/write-layer';
import { errorText, formatMs, formatRatio, median, timeInterleaved, withTimeout } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report, type Section } from './report';
import { PEER, startPeer, type Peer } from './sandbox-peer';

const TARGET_EXTRA_MS = 30;
/** Issue 98: what our sandbox adds to a bare command at most this share of what Claude Code's runtime adds. */
const PEER_SHARE = 0.8;
/** Issue 66: a sandboxed command costs at most this over a bare `sh -c true`. */
const TARGET_OVER_SH_MS = 8;
/** Issue 66: the overhead in a 100,000-file folder within this of a 20-file folder's. */
const FLAT_RATIO = 1.5;
const FILES = 200;
const AGENT_STEPS = 20;
const ALLOW_ALL: PermissionRule[] = [{ tools: ['*'], decision: 'allow' }];

function makeFolder(): { root: string; folder: string; dataDir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-sandbox-'));
  const folder = path.join(root, 'project');
  const dataDir = path.join(root, 'data');
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(folder, `pkg${i % 10}`, `mod${i % 4}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file${i}.ts`), `export const n${i} = ${i};\n`);
  }
  fs.mkdirSync(dataDir);
  return { root, folder, dataDir };
}

/** One `sh -c true` started as node starts a process: the floor of any command. */
function bareSh(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'true'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve('exit 0') : reject(new Error(`exit ${code}`))));
  });
}

/** `sh -c COMMAND` in `folder` as node starts a process, its output read: the floor both sandboxes are measured over. */
function bareCommand(command: string, folder: string): () => Promise<string> {
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command], { cwd: folder, stdio: ['ignore', 'pipe', 'ignore'] });
      let out = 0;
      child.stdout.on('data', (d: Buffer) => (out += d.length));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve(`${out} bytes`) : reject(new Error(`exit ${code}`))));
    });
}

/** A command in a pseudo-terminal (node-pty), as execute runs one; with `ack`, answered once it reports its status (process/status-report.ts). */
function inPty(file: string, args: string[], cwd = os.tmpdir(), ack?: string, env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' }): () => Promise<string> {
  return () =>
    new Promise((resolve, reject) => {
      const p = pty.spawn(file, args, { cols: 80, rows: 24, cwd, env });
      p.onData(ack === undefined ? () => undefined : (chunk) => void (chunk.includes(`\x1b]${DONE_OSC};done;${ack};`) && p.write(`${ack}\n`)));
      p.onExit(({ exitCode }) => (exitCode === 0 ? resolve('exit 0') : reject(new Error(`${file} exit ${exitCode}`))));
    });
}

/** bubblewrap with every namespace, the root read-only: the sandbox's floor. */
const BWRAP_EVERY_NAMESPACE = ['--unshare-all', '--die-with-parent', '--new-session', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/sh', '-c', 'true'];

interface Floors {
  sh: number;
  pty: number;
  bwrap: number;
}

/** Each phase of a sandboxed command, per run: prepare, launch to exit, the checks after, the clean-up. */
interface Phases {
  prepare: number[];
  run: number[];
  checks: number[];
  cleanup: number[];
  /** bubblewrap's mount operations per command (each hidden folder is two or three). */
  mounts: number[];
}

const MOUNT_OPERATION = /^--(?:ro-bind|bind|tmpfs|remount-ro|dir|dev|proc)$/;

/** The same sandbox, its commands' phases timed (the sandbox's own calls, as runInPty makes them). */
function timedSandbox(sandbox: Sandbox): { sandbox: Sandbox; phases: Phases } {
  const phases: Phases = { prepare: [], run: [], checks: [], cleanup: [], mounts: [] };
  const timed = Object.create(sandbox) as Sandbox;
  timed.prepare = async (spec, options) => {
    const started = performance.now();
    const prepared = await sandbox.prepare(spec, options);
    const launched = performance.now();
    phases.prepare.push(launched - started);
    phases.mounts.push(prepared.args.filter((arg) => MOUNT_OPERATION.test(arg)).length);
    return {
      ...prepared,
      blockedLine: async (output, exitCode) => {
        const ended = performance.now();
        phases.run.push(ended - launched);
        const line = await prepared.blockedLine(output, exitCode);
        phases.checks.push(performance.now() - ended);
        return line;
      },
      dispose: async () => {
        const at = performance.now();
        await prepared.dispose();
        phases.cleanup.push(performance.now() - at);
      },
    };
  };
  return { sandbox: timed, phases };
}

/**
 * The launch chain of one prepared `sh -c true`, part by part, each in a pty as execute runs
 * it: bwrap with this folder's mount list and seccomp filter (through the prelude's shell),
 * the whole prepared launch (with the write layer: overlay-exec's namespace and overlay
 * before it), and the same launch as execute prepares it: the command in the user's
 * shell, its status reported by the launch's shell and answered. The prepared commands are
 * kept (their folders) until `dispose`.
 */
async function launchParts(sandbox: Sandbox, folder: string, env: Record<string, string>): Promise<{ parts: Record<string, { run: () => Promise<string> }>; dispose: () => Promise<void> }> {
  const prepared = await sandbox.prepare({ file: '/bin/sh', args: ['-c', 'true'], cwd: folder, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.homedir() } });
  const shell = resolveShell(env.SHELL ?? process.env.SHELL);
  const nonce = randomBytes(8).toString('hex');
  const reported = await sandbox.prepare({ file: shell, args: ['-c', 'true', path.basename(shell)], cwd: folder, env }, { report: { nonce, stdinFromPty: false } });
  const bwrap = findBwrap();
  const at = bwrap === undefined ? -1 : prepared.args.lastIndexOf(bwrap);
  const parts: Record<string, { run: () => Promise<string> }> = {
    chain: { run: inPty(prepared.file, prepared.args, folder) },
    reported: { run: inPty(reported.file, reported.args, folder, nonce, reported.env) },
  };
  if (bwrap !== undefined && at >= 0) {
    // Without the layer's user namespace there is no uid to map back to.
    const own = prepared.args.slice(at + 1);
    const ids = own.indexOf('--uid');
    const mounts = ids >= 0 ? [...own.slice(0, ids), ...own.slice(ids + 4)] : own;
    const filter = seccompFilter();
    const launch = withPrelude({ maxProcesses: SANDBOX_MAX_PROCESSES, ...(filter ? { filter } : {}) }, bwrap, mounts);
    parts.ours = { run: inPty(launch.file, launch.args, folder) };
  }
  return { parts, dispose: async () => void (await Promise.all([prepared.dispose(), reported.dispose()])) };
}

async function benchCommands(section: Section, options: BenchOptions, untimed: Sandbox, folder: string, peer: Peer | { unavailable: string }): Promise<void> {
  const { sandbox, phases } = timedSandbox(untimed);
  const plain = new LocalShellBackend({ rootDir: folder });
  const boxed = new LocalShellBackend({ rootDir: folder, sandbox });
  const runs = Math.max(options.runs * 4, 20);
  for (const [label, command] of [
    ['`true`', 'true'],
    [`\`ls -R\` of ${FILES} files`, 'ls -R'],
  ] as const) {
    progress(`execute ${label}, sandboxed and not, beside bare sh, sh in a pty and bwrap in a pty`);
    for (const list of Object.values(phases)) list.length = 0;
    const exec = (backend: LocalShellBackend) => async () => {
      const r = await backend.execute(command, { timeoutS: 30 });
      if (r.exitCode !== 0 || r.sandboxBlocked) throw new Error(`exit ${r.exitCode}: ${r.output.slice(0, 200)}`);
      return `${r.output.length} chars`;
    };
    const floorsToo = command === 'true';
    const launch = floorsToo ? await launchParts(untimed, folder, await buildCommandEnv()) : undefined;
    let results: Awaited<ReturnType<typeof timeInterleaved>>;
    try {
      results = await timeInterleaved(
        {
          sandboxed: { run: exec(boxed) },
          unsandboxed: { run: exec(plain) },
          bare: { run: bareCommand(command, folder) },
          ...('run' in peer ? { peer: { run: () => peer.run(command) } } : {}),
          ...(floorsToo ? { sh: { run: bareSh }, pty: { run: inPty('/bin/sh', ['-c', 'true']) }, bwrap: { run: inPty('bwrap', BWRAP_EVERY_NAMESPACE) } } : {}),
          ...launch?.parts,
        },
        { runs, budgetMs: 30_000 },
      );
    } finally {
      await launch?.dispose();
    }
    // The peer's failure is its row's alone.
    const failed = Object.entries(results).find(([name, r]) => name !== 'peer' && r.error !== undefined);
    if (failed) {
      section.rows.push({ name: `execute ${label}`, ours: `error (${failed[0]}): ${failed[1].error}` });
      continue;
    }
    const a = median(results.sandboxed!.times);
    const b = median(results.unsandboxed!.times);
    peerRow(section, label, results, peer);
    if (floorsToo) {
      const floors: Floors = { sh: median(results.sh!.times), pty: median(results.pty!.times), bwrap: median(results.bwrap!.times) };
      section.rows.push({
        name: 'floors: bare `sh -c true` / the same in node-pty / bwrap with every namespace in node-pty',
        ours: `${formatMs(floors.sh)} / ${formatMs(floors.pty)} / ${formatMs(floors.bwrap)}`,
        target: '—',
      });
      section.rows.push({
        name: `execute \`true\` sandboxed, over bare sh (${results.sandboxed!.times.length} runs each; unsandboxed execute ${formatMs(b)})`,
        ours: `${formatMs(a)} (+${formatMs(a - floors.sh)})`,
        floor: `${formatMs(floors.sh)} sh`,
        ratio: formatRatio(a, floors.sh),
        target: `≤ bare sh + ${TARGET_OVER_SH_MS} ms`,
        result: verdict(a - floors.sh <= TARGET_OVER_SH_MS),
      });
      // The launch, part by part (medians of the same runs, each part over the one before):
      // bwrap alone, our mount list and seccomp filter, the write layer's namespace and
      // overlay, the command in the user's shell and the status report, then Node's own
      // work around the run (the pty's start and end, the process-tree watch and clean-up).
      const chain = results.chain?.times.length ? median(results.chain.times) : NaN;
      const ours = results.ours?.times.length ? median(results.ours.times) : NaN;
      const reported = results.reported?.times.length ? median(results.reported.times) : NaN;
      const run = median(phases.run);
      section.rows.push({
        name: "  where, the launch: sh in a pty / bwrap (its floor) / our mounts and seccomp / the write layer (overlay-exec: namespace, overlay) / the user's shell and the status report / Node's work around the run",
        ours: [formatMs(floors.pty), ...[floors.bwrap - floors.pty, ours - floors.bwrap, chain - ours, reported - chain, run - reported].map((ms) => `${ms < 0 ? '' : '+'}${formatMs(ms)}`)].join(' / '),
        floor: `${formatMs(floors.sh)} sh`,
        target: '—',
      });
      // Where the time goes (medians of the same runs): what the sandbox adds around the pty's run.
      section.rows.push({
        name: `  where: prepare (policy, git surface, folders) / launch to exit (namespace, overlay, bwrap with ${median(phases.mounts)} mount operations, the command) / checks after (the layer) / clean-up`,
        ours: `${formatMs(median(phases.prepare))} / ${formatMs(median(phases.run))} / ${formatMs(median(phases.checks))} / ${formatMs(median(phases.cleanup))}`,
        floor: `${formatMs(floors.bwrap)} bwrap in pty`,
        target: '—',
      });
      continue;
    }
    section.rows.push({
      name: `execute ${label}: sandboxed vs not (${results.sandboxed!.times.length} runs each)`,
      ours: `${formatMs(a)} vs ${formatMs(b)} (+${formatMs(a - b)})`,
      floor: `${formatMs(b)} unsandboxed`,
      ratio: formatRatio(a, b),
      target: `≤ +${TARGET_OVER_SH_MS} ms median`,
      result: verdict(a - b <= TARGET_OVER_SH_MS),
    });
  }
}

/**
 * The sandbox's cost stays flat in the folder's size: the overhead of a sandboxed `true` (over
 * the same execute unsandboxed, interleaved) in a 100,000-file folder beside a 20-file one.
 */
/**
 * Issue 98: what each sandbox adds to the same bare command (`sh -c` in the folder, as node
 * starts it), in the same rounds: our sandboxed execute (write layer, checks after, a pty)
 * beside Claude Code's runtime (wrapped per command, run by a shell; neither).
 */
function peerRow(section: Section, label: string, results: Awaited<ReturnType<typeof timeInterleaved>>, peer: Peer | { unavailable: string }): void {
  const name = `execute ${label} sandboxed (write layer + checks after, in a pty) beside ${PEER} as Claude Code uses it (neither), each over the bare command`;
  if (!('run' in peer)) {
    section.rows.push({ name, ours: 'peer not run', result: peer.unavailable });
    return;
  }
  if (results.peer!.error !== undefined) {
    section.rows.push({ name, ours: 'peer failed', result: results.peer!.error });
    return;
  }
  const bare = median(results.bare!.times);
  const ours = median(results.sandboxed!.times) - bare;
  const theirs = median(results.peer!.times) - bare;
  section.rows.push({
    name,
    ours: `+${formatMs(ours)}`,
    floor: `+${formatMs(theirs)} peer (bare ${formatMs(bare)})`,
    ratio: formatRatio(ours, theirs),
    target: `≤ ${PEER_SHARE}× the peer`,
    result: verdict(ours <= PEER_SHARE * theirs),
  });
}

async function benchFlatness(section: Section, options: BenchOptions, folder100k: string, dataDir: string): Promise<void> {
  progress('execute `true` sandboxed and not, in a 20-file and a 100,000-file folder');
  const small = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-sandbox-20-'));
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-sandbox-repo-'));
  try {
    for (const folder of [small, repo]) for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(folder, `file${i}.ts`), `export const n${i} = ${i};\n`);
    // The usual project: the same 20 files, committed (its .git is looked at and mounted read-only for every command).
    execFileSync('sh', ['-c', 'git init -q && git add -A && git -c user.name=bench -c user.email=bench@example.com commit -qm files'], { cwd: repo });
    const contenders: Parameters<typeof timeInterleaved>[0] = {};
    for (const [name, folder] of [
      ['small', small],
      ['repo', repo],
      ['big', folder100k],
    ] as const) {
      const sandbox = await createSandbox({ projectDir: folder, dataDir: path.join(dataDir, `flat-${name}`) });
      if (!sandbox) throw new Error('createSandbox returned nothing');
      for (const [kind, backend] of [
        ['boxed', new LocalShellBackend({ rootDir: folder, sandbox })],
        ['plain', new LocalShellBackend({ rootDir: folder })],
      ] as const) {
        contenders[`${name} ${kind}`] = {
          run: async () => {
            const r = await backend.execute('true', { timeoutS: 30 });
            if (r.exitCode !== 0 || r.sandboxBlocked) throw new Error(`exit ${r.exitCode}: ${r.output.slice(0, 200)}`);
            return 'ok';
          },
        };
      }
    }
    const results = await timeInterleaved(contenders, { runs: Math.max(options.runs * 6, 30), budgetMs: 45_000 });
    const failed = Object.entries(results).find(([, r]) => r.error !== undefined);
    if (failed) {
      section.rows.push({ name: 'sandboxed `true`: 100,000-file folder vs 20-file folder', ours: `error (${failed[0]}): ${failed[1].error}` });
      return;
    }
    const over = (name: string): number => median(results[`${name} boxed`]!.times) - median(results[`${name} plain`]!.times);
    const big = over('big');
    const smallOver = over('small');
    section.rows.push({
      name: 'sandbox overhead on `true`: 100,000-file folder vs 20-file folder (flat in size)',
      ours: `+${formatMs(big)} vs +${formatMs(smallOver)}`,
      floor: `+${formatMs(smallOver)} at 20 files`,
      ratio: formatRatio(big, smallOver),
      target: `≤ ${FLAT_RATIO}× the 20-file folder's`,
      result: verdict(big <= smallOver * FLAT_RATIO),
    });
    const inRepo = over('repo');
    section.rows.push({
      name: '  the same in a git repository of the 20 files (its .git looked at and kept read-only)',
      ours: `+${formatMs(inRepo)} vs +${formatMs(smallOver)}`,
      floor: `+${formatMs(smallOver)} at 20 files`,
      ratio: formatRatio(inRepo, smallOver),
      target: '—',
    });
  } finally {
    fs.rmSync(small, { recursive: true, force: true });
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

/** A model that answers at once: `execute true` for `steps` calls, then text. Records when each call starts. */
class ExecuteModel implements ChatModel {
  readonly id = 'openai-compatible:instant-stub';
  readonly provider = 'openai-compatible' as const;
  readonly contextWindow = 200_000;
  readonly callTimes: number[] = [];

  constructor(private readonly steps: number) {}

  async *stream(_request: ModelRequest): AsyncIterable<ModelEvent> {
    const n = this.callTimes.length;
    this.callTimes.push(performance.now());
    const usage = { inputTokens: 1_000, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
    if (n < this.steps) {
      const id = `call_exec_${n}`;
      // A different argument each step: the harness stops runs that repeat the same call.
      const args = { command: `true step-${n}` };
      yield { type: 'tool-call-start', id, name: 'execute' };
      yield { type: 'tool-call', call: { id, name: 'execute', args, argsText: JSON.stringify(args) } };
      yield { type: 'finish', stopReason: 'tool-calls', usage };
    } else {
      yield { type: 'text-delta', text: 'Done.' };
      yield { type: 'finish', stopReason: 'stop', usage };
    }
  }
}

async function agentSteps(folder: string, dataDir: string, sandbox: Sandbox | undefined): Promise<number[]> {
  const db = openDatabase(path.join(dataDir, 'deepdesk.db'));
  try {
    const mounts = createDefaultMounts({ folder, db, ...(sandbox ? { sandbox } : {}) });
    const model = new ExecuteModel(AGENT_STEPS);
    const definition = createAgentDefinition({
      model,
      backend: mounts.backend,
      rules: () => ALLOW_ALL,
      broker: { decide: async () => ({ type: 'reject', message: 'benchmark' }) },
    });
    const state = newThreadState(`bench-sandbox-${Math.random().toString(36).slice(2)}`);
    const result = await withTimeout(
      runAgent(definition, state, { role: 'user', content: 'Run the checks.' }, { emit: () => undefined, persist: async () => undefined, guard: new ReadGuard() }),
      120_000,
      'agent run',
    );
    if (result.reason !== 'completed') throw new Error(`run ended with ${result.reason}: ${result.error?.message ?? ''}`);
    const steps: number[] = [];
    // The first step also pays for one-time set-up (the login shell's PATH).
    for (let k = 1; k + 1 < model.callTimes.length; k++) steps.push(model.callTimes[k + 1]! - model.callTimes[k]!);
    return steps;
  } finally {
    db.close();
  }
}

async function benchAgentStep(section: Section, sandbox: Sandbox, folder: string, dataDir: string): Promise<void> {
  progress(`agent loop, ${AGENT_STEPS} execute steps, sandboxed and not`);
  const inside: number[] = [];
  const outside: number[] = [];
  // Alternate whole runs so that load from elsewhere falls on both alike.
  for (let round = 0; round < 2; round++) {
    outside.push(...(await agentSteps(folder, dataDir, undefined)));
    inside.push(...(await agentSteps(folder, dataDir, sandbox)));
  }
  const a = median(inside);
  const b = median(outside);
  section.rows.push({
    name: `agent step with execute \`true\` (auto mode: no approval), sandboxed vs not`,
    ours: `${formatMs(a)}/step (+${formatMs(a - b)})`,
    floor: `${formatMs(b)}/step unsandboxed`,
    ratio: formatRatio(a, b),
    target: `≤ +${TARGET_OVER_SH_MS} ms median`,
    result: verdict(a - b <= TARGET_OVER_SH_MS),
  });
}

const SERVER_CALLS = 200;

/**
 * The sandbox's cost per MCP tool call: server-everything's echo through the hub, the same
 * server sandboxed and not, interleaved (what a sandboxed server pays per call: the checks
 * before its result is accepted, and bwrap's namespaces on its pipes).
 */
async function benchServerCall(section: Section, options: BenchOptions, folder: string, dataDir: string): Promise<void> {
  const hubs = { sandboxed: true, unsandboxed: false } as const;
  const opened: McpHub[] = [];
  try {
    const calls: Record<string, () => Promise<string>> = {};
    for (const [label, sandboxed] of Object.entries(hubs)) {
      const hub = new McpHub({ folder, dataDir, env: process.env, clientInfo: { name: 'deepdesk-bench', version: '0' } });
      opened.push(hub);
      await hub.configure([stdioEntry('every', [EVERYTHING, 'stdio'], { sandbox: sandboxed })], []);
      const state = hub.states()[0]!;
      if (state.status !== 'connected') throw new Error(`server-everything (${label}) did not connect: ${state.error ?? state.status}`);
      const never = new AbortController().signal;
      calls[label] = async () => {
        const r = await hub.callTool('mcp__every__echo', { message: 'bench' }, never);
        const text = typeof r === 'string' ? r : JSON.stringify(r);
        if (text.startsWith('Error: ')) throw new Error(`echo failed: ${text.slice(0, 200)}`);
        return `${text.length} chars`;
      };
    }
    progress(`MCP echo calls, sandboxed server and not`);
    const runs = Math.max(options.runs * 40, SERVER_CALLS);
    const results = await timeInterleaved({ sandboxed: { run: calls.sandboxed! }, unsandboxed: { run: calls.unsandboxed! } }, { runs, budgetMs: 30_000 });
    const inside = results.sandboxed!;
    const outside = results.unsandboxed!;
    if (inside.error || outside.error) {
      section.rows.push({ name: 'MCP tool call, sandboxed server vs not', ours: `error: ${inside.error ?? outside.error}` });
      return;
    }
    const a = median(inside.times);
    const b = median(outside.times);
    section.rows.push({
      name: `MCP tool call (server-everything echo): sandboxed server vs not (${inside.times.length} calls each)`,
      ours: `${formatMs(a)} vs ${formatMs(b)} (+${formatMs(a - b)})`,
      ratio: formatRatio(a, b),
      target: `≤ +${TARGET_EXTRA_MS} ms median`,
      result: verdict(a - b <= TARGET_EXTRA_MS),
    });
  } finally {
    for (const hub of opened) await hub.close().catch(() => undefined);
  }
}

/** Runs `file args` to its exit (no pty: the launch alone). */
function spawned(file: string, args: string[]): () => Promise<string> {
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn(file, args, { stdio: 'ignore', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve('exit 0') : reject(new Error(`${path.basename(file)} exit ${code}`))));
    });
}

/**
 * The write layer's launch (a user and mount namespace and the overlay, then the shell that
 * starts bwrap) through overlay-exec, beside the util-linux programs it replaced (`unshare -r -m`,
 * then `mount` from that shell) and the shell alone: what the small program saves per command.
 */
async function benchLayerLaunch(section: Section, options: BenchOptions, folder: string): Promise<void> {
  const tools = await writeLayerTools();
  if (!tools) {
    section.rows.push({ name: 'the write layer launch', ours: 'no write layer here' });
    return;
  }
  progress('the write layer launch: overlay-exec beside unshare -r -m and mount');
  const layer = createWriteLayer(tools, folder);
  try {
    const overlayOptions = `lowerdir=${folder},upperdir=${layer.dir}/upper,workdir=${layer.dir}/work,userxattr`;
    const ours = layer.wrap('/bin/sh', ['-c', 'exec /bin/true']);
    const results = await timeInterleaved(
      {
        sh: { run: spawned('/bin/sh', ['-c', 'exec /bin/true']) },
        ours: { run: spawned(ours.file, ours.args) },
        utilLinux: { run: spawned('unshare', ['-r', '-m', '/bin/sh', '-c', 'LC_ALL=C mount -t overlay overlay -o "$1" "$2" && exec /bin/true', 'sh', overlayOptions, folder]) },
      },
      { runs: Math.max(options.runs * 40, 100), budgetMs: 15_000 },
    );
    const failed = Object.entries(results).find(([, r]) => r.error !== undefined);
    if (failed) {
      section.rows.push({ name: 'the write layer launch', ours: `error (${failed[0]}): ${failed[1].error}` });
      return;
    }
    const sh = median(results.sh!.times);
    const a = median(results.ours!.times);
    const b = median(results.utilLinux!.times);
    section.rows.push({
      name: `  the write layer's namespace and overlay, then a shell: overlay-exec vs \`unshare -r -m\` + \`mount\` (${results.ours!.times.length} runs each)`,
      ours: `+${formatMs(a - sh)} vs +${formatMs(b - sh)} over the shell alone`,
      reference: `${formatMs(sh)} sh`,
      ratio: formatRatio(a - sh, b - sh),
      target: '—',
    });
  } finally {
    discardLayer(layer.dir);
  }
}

export async function benchSandbox(report: Report, options: BenchOptions, folder100k?: () => Promise<string>): Promise<void> {
  const section = report.section('Issue 11 · Trust II: sandbox cost per command (bubblewrap)');
  const availability = await detectSandbox();
  if (!availability.available) {
    section.rows.push({ name: 'sandbox', ours: `not available here: ${availability.reason}` });
    return;
  }
  const { root, folder, dataDir } = makeFolder();
  try {
    const sandbox = await createSandbox({ projectDir: folder, dataDir });
    if (!sandbox) throw new Error('createSandbox returned nothing although the sandbox is available');
    const peer = await startPeer(folder);
    try {
      await benchCommands(section, options, sandbox, folder, peer);
    } finally {
      if ('close' in peer) await peer.close();
    }
    await benchLayerLaunch(section, options, folder).catch((err: unknown) => section.rows.push({ name: 'the write layer launch', ours: `error: ${errorText(err)}` }));
    if (folder100k !== undefined) {
      await benchFlatness(section, options, await folder100k(), dataDir).catch((err: unknown) =>
        section.rows.push({ name: 'sandboxed `true`: 100,000-file folder vs 20-file folder', ours: `error: ${errorText(err)}` }),
      );
    }
    await benchAgentStep(section, sandbox, folder, dataDir).catch((err: unknown) =>
      section.rows.push({ name: 'agent step with execute', ours: `error: ${errorText(err)}` }),
    );
    await benchServerCall(section, options, folder, dataDir).catch((err: unknown) =>
      section.rows.push({ name: 'MCP tool call, sandboxed server vs not', ours: `error: ${errorText(err)}` }),
    );
    section.notes.push('both sides run through the same LocalShellBackend and pty; sandboxed adds prepare (policy, private TMPDIR, git state) + bwrap + the post-run checks and blocked-line scan');
    section.notes.push(
      `the peer, ${PEER} (pinned devDependency), as Claude Code uses it: initialized once in the folder (network proxies; on Linux socat's bridges), each command wrapped (bwrap, seccomp, the deny scan with ripgrep) and run by sh with pipes; its writes land in the folder directly and nothing is checked after. Ours: each command's writes held in the write layer and checked before they land (set-id files, hidden and git paths), the user's shell in a pty with its status reported`,
    );
    section.notes.push(`ratio = sandboxed ÷ unsandboxed; ${availability.kind}; machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores at the end`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
