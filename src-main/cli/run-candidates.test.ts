// `deepdesk run --candidates N` (SPEC §21) through the built bin: a real git fixture whose check
// the models never read (only the host runs it), three scripted candidates told apart by their
// model (`--model` given once per candidate). Exactly one candidate's change passes the hidden
// check, another claims success while it fails; with the roles shuffled between trials the
// passing one ranks first every time and the claimer never does; the person's folder is as it
// was until `worktrees apply`. A small budget over the set holds and stops the unfinished ones
// `budget-limited`, their worktrees kept; `usage --by thread` adds up to the set's total.

import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from '../core/models/testing/scripted-server';
import { removeDataDir } from '../app/host/testing/remove-data-dir';
import { candidateSetJsonSchema, type CandidateSetJson } from '../app/session/candidate-ranking';
import { hostPid } from './host-harness.test-support';
import { openDatabase } from '../core/backends/store/store';
import { CandidateRecords } from '../app/threads/candidate-records';
import { modelFlags, rankingTable } from './run-candidates';
import { candidateModel } from '../app/session/candidate-sets';
import { startStandin } from '../core/sandbox-providers/testing/standins';
import { startDaytonaStandin } from '../core/sandbox-providers/testing/daytona-standin';
import { SANDBOX_PROVIDER_NAMES, SANDBOX_PROVIDER_TABLE } from '../core/process/sandbox-provider-table';

const NO_PROVIDER_KEYS = { DAYTONA_API_KEY: '', DAYTONA_API_URL: '', E2B_API_KEY: '', MODAL_TOKEN_ID: '', MODAL_TOKEN_SECRET: '', DENO_DEPLOY_TOKEN: '' };

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');
const CHECK = 'node check.js';
const MODELS = ['cand-a', 'cand-b', 'cand-c'];

let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-cand-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-cand-data-'));
  writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
  writeFileSync(join(folder, '.gitignore'), 'tools/\n');
  // The hidden check: never read by a model, only run by the host.
  writeFileSync(join(folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL: sum(2, 3) = ' + sum(2, 3)); process.exit(1); }\nconsole.log('ok');\n");
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: folder, stdio: 'ignore' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'fixture');
  server = await startScriptedServer();
  for (let i = 0; i < 1_000; i++) server.push(route);
});
afterEach(async () => {
  const pid = hostPid(dataDir);
  if (pid !== undefined) process.kill(pid, 'SIGTERM');
  await server?.close();
  removeDataDir(dataDir, folder);
});

const isGrader = (request: RecordedRequest) => request.tools?.some((t) => t.function.name === 'record_verdict') === true;

/** The grader stand-in judges from the evidence pack it is sent: every step passed → satisfied. */
function grader(request: RecordedRequest): ScriptStep {
  const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
  const passed = !/→ FAILED/.test(prompt);
  return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: passed ? 'satisfied' : 'needs_revision', reason: passed ? 'the check passed' : 'the check failed' }] } }] };
}

const write = (body: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' 'module.exports = (a, b) => ${body};' > sum.js` } }] });

type Role = 'fixer' | 'claimer' | 'idle' | 'broken' | 'hider';
/** A model whose every call fails (a key it refuses): no retry, the run fails. */
const REFUSED: ScriptStep = { error: { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } } };
const ROLE_TURNS: Record<Role, ScriptStep[]> = {
  broken: Array.from({ length: 20 }, () => REFUSED),
  fixer: [write('a + b'), { text: 'Changed sum to add.' }],
  // The same fix, and more of its change hidden in a git-ignored folder.
  hider: [write('a + b'), { toolCalls: [{ name: 'execute', args: { command: "mkdir -p tools && printf '%s\\n' '#!/bin/sh' 'exit 0' > tools/check.sh" } }] }, { text: 'Changed sum to add.' }],
  // Claims success while the hidden check fails, round after round.
  claimer: [write('a * b'), { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }],
  idle: [{ text: 'I could not work out what to change.' }],
};

/** The trial's roles by model, and how far each candidate's script has gone. */
let routing: { roles: Record<string, Role>; next: Map<string, number>; delayMs: number } = { roles: {}, next: new Map(), delayMs: 0 };

/** Each request goes to its candidate's script, told by the model it names; the grader answers any. */
function route(request: RecordedRequest): ScriptStep {
  const answer = (): ScriptStep => {
    if (isGrader(request)) return grader(request);
    const role = routing.roles[request.model];
    if (role === undefined) return { text: `unknown model ${request.model}` };
    const i = routing.next.get(request.model) ?? 0;
    routing.next.set(request.model, i + 1);
    return ROLE_TURNS[role][i] ?? { text: 'I have nothing more to do.' };
  };
  return routing.delayMs > 0 ? { delayMs: routing.delayMs, then: answer() } : answer();
}

/** A new trial: these roles, every script from its start. */
function scriptRoles(roles: Record<string, Role>, delayMs = 0): void {
  routing = { roles, next: new Map(), delayMs };
}

function deepdesk(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '', ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

const candidates = (extra: string[], extraEnv: NodeJS.ProcessEnv = {}, count = 3) =>
  deepdesk(
    [
    'run',
    '--folder',
    folder,
    '--data-dir',
    dataDir,
    '--base-url',
    server.url,
    '--approve',
    'auto',
    '--candidates',
    String(count),
    ...MODELS.slice(0, count).flatMap((m) => ['--model', `openai-compatible:${m}`]),
    '--goal',
    'make sum add',
    '--verify',
    CHECK,
    ...extra,
    ],
    extraEnv,
  );

/**
 * The person's folder as they see it: every file's bytes by path, git's status and its checked-out
 * branch and commit (the worktrees' own `deepdesk/*` branches and admin files are §16's, not theirs).
 */
function folderHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (path === join(dir, '.git')) continue;
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else hash.update(`${path.slice(dir.length)}\0`).update(readFileSync(path));
    }
  };
  walk(dir);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
  hash.update(git('status', '--porcelain=v1', '--untracked-files=all')).update(git('symbolic-ref', 'HEAD')).update(git('rev-parse', 'HEAD'));
  return hash.digest('hex');
}

function setOf(stdout: string): CandidateSetJson {
  return candidateSetJsonSchema.parse(JSON.parse(stdout.trim().split('\n').at(-1)!));
}

describe('deepdesk run --candidates', () => {
  it('ranks the candidate whose change passes the hidden check first in every trial (roles shuffled), the claimer never first; the folder is untouched until apply', async () => {
    const before = folderHash(folder);
    const roles: Role[] = ['fixer', 'claimer', 'idle'];
    let last: CandidateSetJson | undefined;
    for (const shift of [0, 1, 2]) {
      const assigned = Object.fromEntries(MODELS.map((m, i) => [m, roles[(i + shift) % 3]!]));
      scriptRoles(assigned);
      const r = await candidates(['--json']);
      expect(r.code, r.stderr).toBe(0);
      const set = setOf(r.stdout);
      const roleOf = (model: string | null) => assigned[model!.replace('openai-compatible:', '')];
      expect(set.ranking.map((e) => roleOf(e.model))).toEqual(['fixer', 'idle', 'claimer']);
      const [first, , claimer] = set.ranking;
      expect(first).toMatchObject({ rank: 1, state: 'achieved', verifyPassed: true, change: { files: 1, lines: 2, newDependencies: 0 } });
      expect(first!.verify[0]).toMatchObject({ command: CHECK, exitCode: 0, passed: true });
      expect(claimer!.state).toBe('unmet');
      expect(claimer!.contradictedClaims.length).toBeGreaterThan(0);
      expect(claimer!.contradictedClaims[0]).toMatchObject({ claim: 'All tests pass.', failingSteps: [{ command: CHECK, exitCode: 1 }] });
      expect(claimer!.verify[0]!.outputTail).toContain('FAIL: sum(2, 3) = 6');
      // Each candidate worked in its own worktree; the folder did not change.
      expect(new Set(set.ranking.map((e) => e.worktree.path)).size).toBe(3);
      expect(readFileSync(join(claimer!.worktree.path, 'sum.js'), 'utf8')).toContain('a * b');
      expect(folderHash(folder)).toBe(before);
      last = set;
      server.requests.length = 0;
    }
    // The host kept the ranking beside the set: another connection (the window's, a later host's) reads it back whole.
    const db = openDatabase(join(dataDir, 'deepdesk.db'));
    try {
      const kept = new CandidateRecords(db).set(last!.setId);
      expect(kept?.ranking).toEqual(last);
      expect(kept?.goal).toBe('make sum add');
    } finally {
      db.close();
    }
    // agents --json: each candidate names its set and its rank there.
    const listed = await deepdesk(['agents', '--json', '--data-dir', dataDir]);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = JSON.parse(listed.stdout) as Array<{ threadId: string; candidateSet?: { id: string; rank?: number; count: number } }>;
    for (const entry of last!.ranking) {
      expect(lines.find((l) => l.threadId === entry.threadId)?.candidateSet).toMatchObject({ id: last!.setId, count: 3, rank: entry.rank });
    }
    const winner = last!.ranking[0]!;
    const apply = await deepdesk(['worktrees', 'apply', winner.threadId, '--data-dir', dataDir]);
    expect(apply.code, apply.stderr).toBe(0);
    expect(readFileSync(join(folder, 'sum.js'), 'utf8')).toContain('a + b');
    expect(execFileSync('node', ['check.js'], { cwd: folder }).toString()).toContain('ok');
  }, 300_000);

  it("asked from a candidate's own worktree folder, a set makes worktrees of the person's folder, none shared with that thread, and applies there", async () => {
    scriptRoles({ 'cand-a': 'claimer', 'cand-b': 'fixer' });
    const first = await candidates(['--json'], {}, 2);
    expect(first.code, first.stderr).toBe(0);
    const inside = setOf(first.stdout).ranking.find((e) => e.model === 'openai-compatible:cand-a')!.worktree.path;
    const before = folderHash(folder);
    scriptRoles({ 'cand-a': 'fixer', 'cand-b': 'claimer' });
    const again = await deepdesk(['run', '--folder', inside, '--data-dir', dataDir, '--base-url', server.url, '--approve', 'auto', '--candidates', '2', '--model', 'openai-compatible:cand-a', '--model', 'openai-compatible:cand-b', '--goal', 'make sum add', '--verify', CHECK, '--json']);
    expect(again.code, again.stderr).toBe(0);
    const set = setOf(again.stdout);
    const paths = set.ranking.map((e) => e.worktree.path);
    expect(new Set(paths).size).toBe(2);
    expect(paths).not.toContain(inside);
    // The claimer's worktree it was asked from is as its own thread left it.
    expect(readFileSync(join(inside, 'sum.js'), 'utf8')).toContain('a * b');
    expect(folderHash(folder)).toBe(before);
    const apply = await deepdesk(['worktrees', 'apply', set.ranking[0]!.threadId, '--data-dir', dataDir]);
    expect(apply.code, apply.stderr).toBe(0);
    expect(readFileSync(join(folder, 'sum.js'), 'utf8')).toContain('a + b');
  }, 300_000);

  it('a candidate that hides part of its change in git-ignored files measures it there: the same fix without it ranks first', async () => {
    scriptRoles({ 'cand-a': 'hider', 'cand-b': 'fixer' });
    const r = await candidates(['--json'], {}, 2);
    expect(r.code, r.stderr).toBe(0);
    const set = setOf(r.stdout);
    expect(set.ranking.map((e) => [e.model, e.state, e.change])).toEqual([
      ['openai-compatible:cand-b', 'achieved', { files: 1, lines: 2, newDependencies: 0 }],
      ['openai-compatible:cand-a', 'achieved', { files: 2, lines: 4, newDependencies: 0 }],
    ]);
  }, 300_000);

  it('prints the ranking as a table', async () => {
    scriptRoles({ 'cand-a': 'idle', 'cand-b': 'fixer', 'cand-c': 'claimer' });
    const r = await candidates([]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^RANK\s+CANDIDATE\s+THREAD\s+MODEL\/AGENT\s+STATE\s+VERIFY\s+CRITERIA\s+CHANGE\s+COST\s+WORKTREE$/);
    // Ranked first, numbered as its `[candidate N]` lines were (its place in the set: the second).
    expect(lines[1]).toMatch(/^1\s+2\s+\S+\s+openai-compatible:cand-b\s+achieved\s+1\/1 passed\s+1\/1\s+1 files, 2 lines/);
    expect(lines[3]).toMatch(/openai-compatible:cand-c\s+unmet \(claim contradicted\)\s+0\/1 passed/);
    expect(r.stderr).toMatch(/1 of 3 candidates achieved the goal; first: \S+ \(deepdesk worktrees apply \S+\)/);
  }, 300_000);

  it('a candidate whose model fails is failed with its reason in --json and in the table, never paused (resumable), and ranks below one that works', async () => {
    scriptRoles({ 'cand-a': 'broken', 'cand-b': 'fixer' });
    const r = await candidates(['--json'], {}, 2);
    expect(r.code, r.stderr).toBe(0);
    const set = setOf(r.stdout);
    const broken = set.ranking.find((e) => e.model === 'openai-compatible:cand-a')!;
    expect(broken).toMatchObject({ rank: 2, candidate: 1, state: 'failed' });
    expect(broken.reason).toContain('Incorrect API key provided');
    expect(set.ranking[0]).toMatchObject({ rank: 1, candidate: 2, state: 'achieved' });
    const shown = rankingTable(set.ranking, set.spentUsd, undefined);
    expect(shown).toMatch(/^2\s+1\s+\S+\s+openai-compatible:cand-a\s+failed\s/m);
    expect(shown).toMatch(/^candidate 1 failed: .*Incorrect API key provided/m);
    expect(shown).not.toContain('paused');
  }, 300_000);

  it('a failed set leaves nothing unnamed: each worktree and branch is named in its ranking and goes with `worktrees rm --force`, no temporary folder is left', async () => {
    scriptRoles({ 'cand-a': 'broken', 'cand-b': 'claimer' });
    const tmp = mkdtempSync(join(tmpdir(), 'deepdesk-cand-tmp-'));
    try {
      const r = await candidates(['--json'], { TMPDIR: tmp }, 2);
      expect(r.code).toBe(1);
      const set = setOf(r.stdout);
      expect(set.ranking.map((e) => e.state).sort()).toEqual(['failed', 'unmet']);
      const branches = () => execFileSync('git', ['branch', '--format=%(refname:short)'], { cwd: folder, encoding: 'utf8' }).trim().split('\n').sort();
      const own = execFileSync('git', ['symbolic-ref', '--short', 'HEAD'], { cwd: folder, encoding: 'utf8' }).trim();
      expect(branches()).toEqual([...set.ranking.map((e) => e.worktree.branch), own].sort());
      for (const entry of set.ranking) {
        const rm = await deepdesk(['worktrees', 'rm', entry.threadId, '--force', '--data-dir', dataDir]);
        expect(rm.code, rm.stderr).toBe(0);
        expect(existsSync(entry.worktree.path)).toBe(false);
      }
      expect(branches()).toEqual([own]);
      expect(execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: folder, encoding: 'utf8' }).match(/^worktree /gm)).toHaveLength(1);
      // Only the per-user folders Deepdesk keeps for its sockets and sandboxes (empty), and Node's compile cache.
      expect(readdirSync(tmp).filter((name) => !/^(deepdesk-(runs|sandbox)-\d+|node-compile-cache)$/.test(name))).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 300_000);

  it('one small budget over three candidates holds: unfinished ones end budget-limited with their worktrees kept, and the ledger adds up to the set’s total', async () => {
    // Every call's estimate (our count of the whole request) is above what the stand-in reports
    // (its messages only), so a budget kept by estimates is kept in fact.
    const preview = await deepdesk(['run', '--print-request', '--json', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:cand-a', '--base-url', server.url, 'make sum add']);
    const tokens = (JSON.parse(preview.stdout) as { total: number }).total;
    expect(tokens).toBeGreaterThan(500);
    const prices = Object.fromEntries(MODELS.map((m) => [`openai-compatible:${m}`, { input: 10, output: 10 }]));
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ prices }));
    const estimate = (tokens * 10) / 1_000_000;
    const budget = Number((estimate * 2.5).toFixed(4));
    // Every call takes a while, so the candidates' calls overlap: two estimates fit under way, three do not.
    scriptRoles({ 'cand-a': 'fixer', 'cand-b': 'fixer', 'cand-c': 'fixer' }, 2_000);
    const r = await candidates(['--json', '--max-cost', String(budget)]);
    const set = setOf(r.stdout);
    const states = set.ranking.map((e) => e.state).sort();
    expect(states.filter((s) => s === 'budget-limited').length, r.stderr).toBeGreaterThan(0);
    for (const s of states) expect(['achieved', 'budget-limited']).toContain(s);
    for (const e of set.ranking.filter((x) => x.state === 'budget-limited')) {
      expect(e.reason).toMatch(/^stopped: the candidates' set's budget of \$[\d.]+ is spent/);
      expect(existsSync(e.worktree.path)).toBe(true);
    }
    expect(set.budgetUsd).toBe(budget);
    expect(set.spentUsd).not.toBeNull();
    expect(set.spentUsd!).toBeLessThanOrEqual(budget);
    // `usage --by thread` adds up: each candidate's row is its cost in the ranking, and they sum to the set's total.
    const usage = JSON.parse((await deepdesk(['usage', '--by', 'thread', '--json', '--data-dir', dataDir])).stdout) as { rows: Array<{ key: string; costUsd: number | null }> };
    let sum = 0;
    for (const e of set.ranking) {
      const row = usage.rows.find((x) => x.key === e.threadId);
      expect(row?.costUsd ?? 0).toBeCloseTo(e.costUsd ?? -1, 10);
      sum += row?.costUsd ?? 0;
    }
    expect(sum).toBeCloseTo(set.spentUsd!, 10);
    expect(r.code).toBe(set.ranking.some((e) => e.state === 'achieved') ? 0 : 1);
  }, 300_000);

  // Where the provider forks (its row says so), one sandbox is set up with the folder — one
  // upload — and forked for the other candidates before any runs; Deno, which cannot fork, makes
  // each candidate's sandbox from the same folder, one upload each. Either way each candidate's
  // change comes back to its own worktree and the person's folder is as it was.
  it.each(SANDBOX_PROVIDER_NAMES)('with --sandbox %s each of three candidates works in its own sandbox (forked from one set up with the folder where the provider forks); each change comes back to its own worktree, the folder untouched', async (name) => {
    const standin = await startStandin(name);
    try {
      const before = folderHash(folder);
      scriptRoles({ 'cand-a': 'claimer', 'cand-b': 'fixer', 'cand-c': 'idle' });
      const r = await candidates(['--json', '--sandbox', name], { ...NO_PROVIDER_KEYS, ...standin.env }, 3);
      expect(r.code, r.stderr).toBe(0);
      const set = setOf(r.stdout);
      expect(set.ranking[0]).toMatchObject({ model: 'openai-compatible:cand-b', state: 'achieved', verifyPassed: true, change: { files: 1, lines: 2 } });
      const byModel = new Map(set.ranking.map((e) => [e.model, e]));
      expect(byModel.get('openai-compatible:cand-a')!.contradictedClaims.length).toBeGreaterThan(0);
      // Three sandboxes, three worktrees, each candidate's change come back to its own.
      expect(standin.boxes.size).toBe(3);
      expect(new Set(set.ranking.map((e) => e.worktree.path)).size).toBe(3);
      const sumIn = (model: string) => readFileSync(join(byModel.get(`openai-compatible:${model}`)!.worktree.path, 'sum.js'), 'utf8');
      expect(sumIn('cand-b')).toContain('a + b');
      expect(sumIn('cand-a')).toContain('a * b');
      expect(sumIn('cand-c')).toContain('a - b');
      // The folder went up once where the provider forks (to the set-up sandbox), else once to each.
      const uploadedTo = new Set(standin.uploads);
      if (SANDBOX_PROVIDER_TABLE[name].capabilities.fork) {
        expect(uploadedTo.size).toBe(1);
        expect(standin.forks).toHaveLength(2);
        expect(new Set([...uploadedTo, ...standin.forks])).toEqual(new Set(standin.boxes.keys()));
      } else {
        expect(uploadedTo).toEqual(new Set(standin.boxes.keys()));
        expect(standin.forks).toHaveLength(0);
      }
      // Every candidate's sandbox time is in the ledger, under its own thread (the set-up sandbox's under the first's).
      const usage = JSON.parse((await deepdesk(['usage', '--by', 'thread', '--json', '--data-dir', dataDir])).stdout) as { sandboxes: Array<{ key: string; seconds: number }> };
      for (const e of set.ranking) expect(usage.sandboxes.find((x) => x.key === e.threadId)?.seconds ?? 0, e.threadId).toBeGreaterThan(0);
      expect(folderHash(folder)).toBe(before);
    } finally {
      await standin.close();
    }
  }, 300_000);

  it('a fork the provider refuses (over its CPU limit) starts nothing: the set-up sandbox, the forks made, the worktrees and branches all go, and the run says why', async () => {
    // Room for two sandboxes: the set-up and one fork are made, the second fork is refused.
    const standin = await startDaytonaStandin({ cpuLimit: 2 });
    try {
      const before = folderHash(folder);
      scriptRoles({ 'cand-a': 'fixer', 'cand-b': 'fixer', 'cand-c': 'fixer' });
      const r = await candidates(['--json', '--sandbox', 'daytona'], { ...NO_PROVIDER_KEYS, ...standin.env }, 3);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/could not be made[^\n]*CPU limit exceeded[^\n]*Nothing was started/);
      expect(standin.forks).toHaveLength(1);
      expect(standin.boxes.size).toBe(0);
      expect(server.requests).toHaveLength(0);
      const git = (...args: string[]) => execFileSync('git', args, { cwd: folder, encoding: 'utf8' });
      expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      expect(git('branch', '--list', 'deepdesk/*').trim()).toBe('');
      expect(folderHash(folder)).toBe(before);
    } finally {
      await standin.close();
    }
  }, 300_000);

  it('a sandbox the provider forks not (Daytona’s container class) is candidate 1’s, and the others make theirs from the same folder, one upload each', async () => {
    const standin = await startDaytonaStandin({ sandboxClass: 'container' });
    try {
      scriptRoles({ 'cand-a': 'claimer', 'cand-b': 'fixer', 'cand-c': 'idle' });
      const r = await candidates(['--json', '--sandbox', 'daytona'], { ...NO_PROVIDER_KEYS, ...standin.env }, 3);
      expect(r.code, r.stderr).toBe(0);
      const set = setOf(r.stdout);
      expect(set.ranking[0]).toMatchObject({ model: 'openai-compatible:cand-b', state: 'achieved' });
      expect(standin.requests.filter((q) => /^POST \/api\/sandbox\/[^/]+\/fork$/.test(q))).toHaveLength(1);
      expect(standin.forks).toHaveLength(0);
      expect(standin.boxes.size).toBe(3);
      expect(new Set(standin.uploads)).toEqual(new Set(standin.boxes.keys()));
      expect(new Set(set.ranking.map((e) => e.worktree.path)).size).toBe(3);
    } finally {
      await standin.close();
    }
  }, 300_000);

  it('without --verify each candidate drafts its goal under the set’s budget: a budget below one call stops every drafting call before it is made, each candidate budget-limited', async () => {
    const prices = Object.fromEntries(MODELS.map((m) => [`openai-compatible:${m}`, { input: 10, output: 10 }]));
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ prices }));
    scriptRoles({ 'cand-a': 'fixer', 'cand-b': 'fixer', 'cand-c': 'fixer' });
    const flags = ['--folder', folder, '--data-dir', dataDir, '--base-url', server.url, '--approve', 'auto'];
    const r = await deepdesk(['run', ...flags, '--candidates', '3', '--model', 'openai-compatible:cand-a', '--goal', 'make sum add', '--max-cost', '0.0001', '--json']);
    expect(r.code).toBe(1);
    const set = setOf(r.stdout);
    expect(set.ranking.map((e) => [e.state, e.model])).toEqual([0, 1, 2].map(() => ['budget-limited', 'openai-compatible:cand-a']));
    expect(server.requests).toHaveLength(0);
    expect(set.spentUsd).toBe(0);
    // Without --max-cost, Settings › Goals' budget for a set is the set's one budget.
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ prices, goals: { candidatesBudgetUsd: 0.0001 } }));
    const fromSettings = await deepdesk(['run', ...flags, '--candidates', '2', '--model', 'openai-compatible:cand-a', '--goal', 'make sum add', '--json']);
    expect(fromSettings.code).toBe(1);
    const settled = setOf(fromSettings.stdout);
    expect(settled.budgetUsd).toBe(0.0001);
    expect(settled.ranking.map((e) => e.state)).toEqual(['budget-limited', 'budget-limited']);
    expect(server.requests).toHaveLength(0);
  }, 300_000);

  it('a set counts as spawns (SPEC §26): under budgets.thread.maxSpawns 2 the first two of three start, the third is not started (spawn cap) with no worktree, and the end says so', async () => {
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ budgets: { thread: { maxSpawns: 2 } } }));
    scriptRoles({ 'cand-a': 'fixer', 'cand-b': 'idle', 'cand-c': 'fixer' });
    const r = await candidates(['--json']);
    expect(r.code, r.stderr).toBe(0);
    const set = setOf(r.stdout);
    expect(set.ranking).toHaveLength(3);
    const capped = set.ranking.find((e) => e.candidate === 3)!;
    expect(capped.state).toBe('failed');
    expect(capped.reason).toContain('not started (spawn cap)');
    expect(server.requests.filter((q) => q.model === 'cand-c')).toHaveLength(0);
    expect(readdirSync(join(folder, '.git', 'worktrees'))).toHaveLength(2);
    expect(r.stderr).toContain('deepdesk run: candidates: 2 of 3 finished, 1 not started\n');
  }, 300_000);

  it('a set over 15 asks first: --approve deny refuses it and nobody at the terminal cannot allow it; nothing is made or asked of a model', async () => {
    const sixteen = (approve: string) =>
      deepdesk(['run', '--folder', folder, '--data-dir', dataDir, '--base-url', server.url, '--model', 'openai-compatible:cand-a', '--approve', approve, '--candidates', '16', '--goal', 'make sum add', '--verify', CHECK, '--max-cost', '2']);
    const denied = await sixteen('deny');
    expect(denied.code).toBe(1);
    expect(denied.stderr).toBe('deepdesk run: not started: a set of more than 15 candidates asks first, and --approve deny refused it (Start 16 candidates (at most $2.00, the set\'s budget))\n');
    const unasked = await sixteen('ask');
    expect(unasked.code).toBe(1);
    expect(unasked.stderr).toContain('nobody is at this terminal to answer (Start 16 candidates');
    expect(existsSync(join(folder, '.git', 'worktrees'))).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('assigns the models given to the candidates in turn', () => {
    expect(modelFlags(['--model', 'a:x', '--goal', 'g', '--model=b:y', '--', '--model', 'c:z'])).toEqual(['a:x', 'b:y']);
    expect([0, 1, 2, 3, 4].map((i) => candidateModel(['a:x', 'b:y'], i))).toEqual(['a:x', 'b:y', 'a:x', 'b:y', 'a:x']);
    expect(candidateModel([], 2)).toBeUndefined();
  });
});

