// Issue 64: candidates (SPEC §21). `deepdesk run --candidates 3` of the build in out/ on a git
// fixture of 2,000 files against the scripted model (each candidate: a fix, "Done.", a grader
// call):
// - the time from the command's start to the third worktree being ready (its line on stderr),
//   beside three `git worktree add -b` of the same repository one after another;
// - the set's wall time to its ranking beside three independent `deepdesk run --worktree --goal`
//   of the same script started at once;
// - for each provider that forks, through its real SDK against its local stand-in: three
//   candidates' sandboxes ready holding the fixture, one upload and two forks (what a set does)
//   beside three sandboxes each sent the folder (what it does where the provider cannot fork).

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE } from '../../src-main/core/process/sandbox-provider-table';
import type { SandboxSpec } from '../../src-main/core/sandbox-providers/provider';
import { openSandboxProvider } from '../../src-main/core/sandbox-providers/registry';
import type { ProviderStandin } from '../../src-main/core/sandbox-providers/testing/standin';
import { startDaytonaStandin } from '../../src-main/core/sandbox-providers/testing/daytona-standin';
import { startE2bStandin } from '../../src-main/core/sandbox-providers/testing/e2b-standin';
import { startModalStandin } from '../../src-main/core/sandbox-providers/testing/modal-standin';
import { planUpload, uploadFolder } from '../../src-main/app/sandboxes/folder-upload';
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from '../../src-main/core/models/testing/scripted-server';
import { errorText, formatMs, formatRatio, median } from './measure';
import type { BenchOptions } from './options';
import { progress, type Report, type Section } from './report';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/deepdesk.mjs');
const CHECK = 'node check.js';
const FILES = 2_000;
const ENV: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: '', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };

function makeFixture(folder: string): void {
  for (let d = 0; d < 20; d++) {
    const dir = path.join(folder, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES / 20; f++) writeFileSync(path.join(dir, `file${f}.js`), `module.exports = ${d * f};\n`);
  }
  writeFileSync(path.join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
  writeFileSync(path.join(folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL: ' + sum(2, 3)); process.exit(1); }\nconsole.log('ok');\n");
  execFileSync('git', ['init', '-q'], { cwd: folder, env: ENV });
  execFileSync('git', ['add', '-A'], { cwd: folder, env: ENV });
  execFileSync('git', ['commit', '-qm', 'fixture'], { cwd: folder, env: ENV });
}

/** Every candidate (any model) fixes sum.js, says so, and the grader judges from the evidence. */
function script(server: ScriptedServer): void {
  const fix: ScriptStep = { toolCalls: [{ name: 'execute', args: { command: "printf '%s\\n' 'module.exports = (a, b) => a + b;' > sum.js" } }] };
  for (let i = 0; i < 400; i++) {
    server.push((request: RecordedRequest): ScriptStep => {
      if (request.tools?.some((t) => t.function.name === 'record_verdict')) {
        const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
        return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ FAILED/.test(prompt) ? 'needs_revision' : 'satisfied', reason: 'evidence' }] } }] };
      }
      // Each conversation's own turn: its first call makes the fix, the next says so.
      return request.messages.some((m) => m.role === 'assistant') ? { text: 'Done.' } : fix;
    });
  }
}

function deepdesk(args: string[], onStderr?: (text: string) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    onStderr?.(stderr);
  });
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

async function benchSet(section: Section, runs: number): Promise<void> {
  if (!existsSync(path.join(root, 'out/main/cli.js'))) throw new Error('build first (npx electron-vite build): the rows run `deepdesk run --candidates` of out/');
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-cand-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-cand-data-'));
  const server = await startScriptedServer();
  script(server);
  const model = ['--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, '--approve', 'auto'];
  try {
    makeFixture(folder);
    // A first run, untimed: the host started and the build's files read once.
    await deepdesk(['run', ...model, '--goal', 'warm up', '--verify', CHECK, '--worktree=warm']);
    const toReady: number[] = [];
    const gitAdd: number[] = [];
    const setWall: number[] = [];
    const independentWall: number[] = [];
    for (let round = 0; round < runs; round++) {
      progress(`deepdesk run --candidates 3 (round ${round + 1} of ${runs})`);
      const started = performance.now();
      let ready: number | undefined;
      const set = await deepdesk(['run', ...model, '--candidates', '3', '--goal', `make sum add ${round}`, '--verify', CHECK, '--json'], (err) => {
        if (ready === undefined && (err.match(/deepdesk: worktree \S+ at /g) ?? []).length >= 3) ready = performance.now() - started;
      });
      if (set.code !== 0) throw new Error(`run --candidates exited ${set.code}: ${set.stderr.trim().split('\n').at(-1) ?? ''}`);
      setWall.push(performance.now() - started);
      if (ready !== undefined) toReady.push(ready);

      const gitStarted = performance.now();
      for (let i = 0; i < 3; i++) execFileSync('git', ['worktree', 'add', '-q', '-b', `bench/${round}-${i}`, path.join(dataDir, 'git-wt', `${round}-${i}`)], { cwd: folder, env: ENV });
      gitAdd.push(performance.now() - gitStarted);

      progress(`three independent deepdesk run --worktree --goal at once (round ${round + 1} of ${runs})`);
      const indStarted = performance.now();
      const independent = await Promise.all([0, 1, 2].map((i) => deepdesk(['run', ...model, `--worktree=ind-${round}-${i}`, '--goal', `make sum add ${round}`, '--verify', CHECK, '--json'])));
      independentWall.push(performance.now() - indStarted);
      const bad = independent.find((r) => r.code !== 0);
      if (bad !== undefined) throw new Error(`an independent run exited ${bad.code}: ${bad.stderr.trim().split('\n').at(-1) ?? ''}`);
    }
    const ready = median(toReady);
    const add = median(gitAdd);
    section.rows.push({
      name: `run --candidates 3 → three worktrees ready (${FILES}-file repository; the command's start, its checks, three WorktreeService.create), beside three \`git worktree add -b\``,
      ours: formatMs(ready),
      floor: `${formatMs(add)} git`,
      ratio: formatRatio(ready, add),
    });
    const set = median(setWall);
    const ind = median(independentWall);
    section.rows.push({
      name: 'the set to its ranking (3 candidates: a fix, "Done.", the gate; worktrees, shared budget, the ranking with each diff), beside three independent `run --worktree --goal` started at once',
      ours: formatMs(set),
      reference: formatMs(ind),
      ratio: formatRatio(set, ind),
    });
    section.notes.push('the scripted model answers at once, so these are the harness, git and the host, not a provider; the set makes its worktrees one after another (git locks its admin files) before any candidate starts');
  } finally {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Three candidates' sandboxes holding the fixture: one upload and two forks, beside three uploads, on each provider that forks (its stand-in). */
async function benchSandboxes(section: Section, runs: number): Promise<void> {
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-cand-sb-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-cand-sb-data-'));
  const spec: SandboxSpec = { labels: { deepdesk: '1', worktree: 'bench' }, idleTimeoutMin: 10 };
  try {
    makeFixture(folder);
    const plan = await planUpload(folder, { dataDir, env: ENV });
    // Imported, not opened by path (testing/standins.ts), so that the bundle of the benchmarks holds them.
    const standins: Partial<Record<string, () => Promise<ProviderStandin>>> = { daytona: startDaytonaStandin, e2b: startE2bStandin, modal: startModalStandin };
    for (const name of SANDBOX_PROVIDER_NAMES.filter((n) => SANDBOX_PROVIDER_TABLE[n].capabilities.fork)) {
      const start = standins[name];
      if (start === undefined) throw new Error(`no stand-in of ${name} in the benchmarks`);
      const standin = await start();
      // Modal's SDK reads its server from the process's environment (once, when it loads).
      const saved = Object.fromEntries(Object.keys(standin.env).map((k) => [k, process.env[k]]));
      Object.assign(process.env, standin.env);
      try {
        const provider = await openSandboxProvider(name, { env: { ...standin.env } });
        const forked: number[] = [];
        const uploaded: number[] = [];
        for (let round = 0; round < runs; round++) {
          progress(`${name}: three sandboxes by fork and by upload (round ${round + 1} of ${runs})`);
          let started = performance.now();
          const setUp = await provider.create(spec);
          await uploadFolder(setUp, folder, plan);
          const forks = await provider.fork!(setUp.id, 2, spec);
          forked.push(performance.now() - started);
          started = performance.now();
          const each = [];
          for (let i = 0; i < 3; i++) {
            const sb = await provider.create(spec);
            await uploadFolder(sb, folder, plan);
            each.push(sb);
          }
          uploaded.push(performance.now() - started);
          for (const sb of [setUp, ...forks, ...each]) await provider.remove(sb.id).catch(() => undefined);
        }
        const f = median(forked);
        const u = median(uploaded);
        section.rows.push({
          name: `three candidates' ${SANDBOX_PROVIDER_TABLE[name].label} sandboxes ready with the ${FILES}-file folder (its SDK, the local stand-in): one upload and two forks, beside three sandboxes each sent the folder`,
          ours: formatMs(f),
          reference: formatMs(u),
          ratio: formatRatio(f, u),
        });
      } finally {
        for (const [k, v] of Object.entries(saved)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
        await standin.close();
      }
    }
    section.notes.push('the stand-ins copy a fork’s files on this machine and send an upload over loopback, so the fork rows show the uploads saved, not a provider’s network or its copy-on-write');
  } finally {
    rmSync(folder, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchCandidates(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 64 · candidates: worktrees ready and the set’s overhead');
  await benchSet(section, Math.min(options.runs, 3)).catch((err: unknown) => section.rows.push({ name: 'candidates', ours: `error: ${errorText(err)}` }));
  await benchSandboxes(section, Math.min(options.runs, 3)).catch((err: unknown) => section.rows.push({ name: 'candidates in forked sandboxes', ours: `error: ${errorText(err)}` }));
}
