// Issue 82: a sandboxed `execute` step as a person meets it, through `deepdesk run` in a git
// repository (the agent host warm, the scripted model answering at once), over an `ls` step of
// the same run shape: what the sandboxed command adds to a step, checkpoint, layer, host round
// trip and the background work before the next step included. Beside its floors in the same
// rounds: bare `sh -c true` and bare bwrap with every namespace, started as node starts a
// process. And flat in size: the same in the 100,000-file repository beside the 20-file one.
// Issue 98: its goal is the peer a person would pick instead, in the same rounds: what Claude
// Code's sandbox runtime adds to a bare `sh -c true` (sandbox-peer.ts).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptedServer, type ScriptStep, type ScriptedServer } from '../../src-main/core/models/testing/scripted-server';
import { findBwrap } from '../../src-main/core/sandbox/bwrap';
import { formatMs, formatRatio, median } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';
import { PEER, startPeer } from './sandbox-peer';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/deepdesk.mjs');
/** Steps per run; the first one (the login shell's PATH, the folder's first look) is not counted. */
const STEPS = 12;
const BWRAP_EVERY_NAMESPACE = ['--unshare-all', '--die-with-parent', '--new-session', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/sh', '-c', 'true'];

function started(file: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const at = performance.now();
    const child = spawn(file, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - at) : reject(new Error(`${file} exit ${code}`))));
  });
}

/** A git repository of `files` committed files (in a temp folder; removed by the caller). */
function smallRepo(files: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-run-step-'));
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, `pkg${i % 4}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `file${i}.ts`), `export const n${i} = ${i};\n`);
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'twenty files');
  return dir;
}

type Kind = 'execute' | 'ls';

/** The model's steps for one run: `STEPS` calls of `kind` (each different: the harness stops repeats), then text; each call's arrival recorded. */
function script(server: ScriptedServer, kind: Kind, arrivals: number[]): void {
  const steps: ScriptStep[] = Array.from({ length: STEPS + 1 }, (_, n) => () => {
    arrivals.push(performance.now());
    if (n === STEPS) return { text: 'Done.' };
    return { toolCalls: [kind === 'execute' ? { name: 'execute', args: { command: `true step-${n}` } } : { name: 'ls', args: { path: n % 2 === 0 ? '/' : '/pkg1' } }] };
  });
  server.push(...steps);
}

function deepdeskRun(folder: string, dataDir: string, baseUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = [bin, 'run', '--approve', 'auto', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', baseUrl, 'Run the checks.'];
    const child = spawn(process.execPath, args, { env: { ...process.env, OPENAI_API_KEY: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`deepdesk run exit ${code}: ${err.trim().split('\n')[0] ?? ''}`))));
  });
}

/** One run's steps: from each model call to the next, the first step left out. */
async function runSteps(server: ScriptedServer, folder: string, dataDir: string, kind: Kind): Promise<number[]> {
  const arrivals: number[] = [];
  script(server, kind, arrivals);
  await deepdeskRun(folder, dataDir, server.url);
  return arrivals.slice(1).flatMap((t, i) => (i === 0 ? [] : [t - arrivals[i]!]));
}

export async function benchRunStep(report: Report, options: BenchOptions, repo100k: () => Promise<string>): Promise<void> {
  const section = report.section('Issue 82 · a sandboxed step through deepdesk run, in a git repository');
  if (findBwrap() === undefined) {
    section.rows.push({ name: 'a sandboxed execute step through deepdesk run', ours: 'skipped', result: 'bubblewrap is not installed' });
    return;
  }
  const small = smallRepo(20);
  const big = await repo100k();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-run-step-data-'));
  const server = await startScriptedServer([]);
  const folders = { small, big } as const;
  const steps: Record<`${keyof typeof folders}-${Kind}`, number[]> = { 'small-execute': [], 'small-ls': [], 'big-execute': [], 'big-ls': [] };
  const floors = { sh: [] as number[], bwrap: [] as number[], peer: [] as number[] };
  const peer = await startPeer(small);
  try {
    progress(`deepdesk run: ${STEPS} sandboxed execute steps beside ${STEPS} ls steps, in a 20-file and a 100,000-file git repository, beside bare sh and bwrap`);
    // Untimed: the host starts, and each folder's first snapshot is taken.
    for (const folder of Object.values(folders)) await runSteps(server, folder, dataDir, 'execute');
    for (let round = 0; round < Math.max(3, options.runs); round++) {
      for (const [name, folder] of Object.entries(folders) as [keyof typeof folders, string][]) {
        for (const kind of ['execute', 'ls'] as const) steps[`${name}-${kind}`].push(...(await runSteps(server, folder, dataDir, kind)));
      }
      for (let i = 0; i < STEPS; i++) {
        floors.sh.push(await started('/bin/sh', ['-c', 'true']));
        floors.bwrap.push(await started('bwrap', BWRAP_EVERY_NAMESPACE));
        if ('run' in peer) {
          const at = performance.now();
          await peer.run('true');
          floors.peer.push(performance.now() - at);
        }
      }
    }
    const sh = median(floors.sh);
    const floor = median(floors.bwrap) - sh;
    const over = (name: keyof typeof folders) => median(steps[`${name}-execute`]) - median(steps[`${name}-ls`]);
    section.rows.push({
      name: `floors: bare \`sh -c true\` / bwrap with every namespace (as node starts a process) / ${PEER}'s \`true\` (wrapped, then sh)`,
      ours: `${formatMs(sh)} / ${formatMs(median(floors.bwrap))} (+${formatMs(floor)}) / ${floors.peer.length > 0 ? formatMs(median(floors.peer)) : '—'}`,
      target: '—',
    });
    const name = 'execute `true` step, sandboxed, through deepdesk run (host warm, git repository of 20 files), over an ls step';
    const ours = `${formatMs(median(steps['small-execute']))} vs ${formatMs(median(steps['small-ls']))} (+${formatMs(over('small'))})`;
    if ('run' in peer) {
      const peerOver = median(floors.peer) - sh;
      section.rows.push({
        name: `${name}, beside what ${PEER} adds to a bare \`sh -c true\``,
        ours,
        floor: `+${formatMs(peerOver)} peer over sh`,
        ratio: formatRatio(over('small'), peerOver),
        target: '≤ the peer',
        result: verdict(over('small') <= peerOver),
      });
    } else section.rows.push({ name, ours, floor: `+${formatMs(floor)} bwrap over sh`, target: '≤ the peer', result: `peer not run: ${peer.unavailable}` });
    section.rows.push({
      name: '  the same in a git repository of 100,000 files (flat in size)',
      ours: `${formatMs(median(steps['big-execute']))} vs ${formatMs(median(steps['big-ls']))} (+${formatMs(over('big'))})`,
      floor: `+${formatMs(over('small'))} at 20 files`,
      ratio: formatRatio(over('big'), over('small')),
      target: '≤ 1.5×',
      result: verdict(over('big') <= 1.5 * over('small')),
    });
    section.notes.push(
      `each step from one model call to the next (${STEPS} a run, the first left out), medians over ${Math.max(3, options.runs)} rounds of one run per folder and kind; the floors' ${STEPS} starts each round between them; machine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores at the end`,
    );
  } finally {
    if ('close' in peer) await peer.close();
    await server.close();
    // The warm host stops once its data folder is gone.
    for (const dir of [small, dataDir]) fs.rmSync(dir, { recursive: true, force: true });
  }
}
