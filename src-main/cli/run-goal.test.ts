// `deepdesk run --goal` (SPEC §21) as a person runs it: the built bin, a scripted model, a real
// git fixture whose check the model never reads. The host runs the verify steps itself; the
// grader (scripted too) answers from the evidence pack it is sent.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from '../core/models/testing/scripted-server';
import { removeDataDir } from '../app/host/testing/remove-data-dir';
import { hostPid, onTerminal, waitFor } from './host-harness.test-support';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');
const CHECK = 'node check.js';

let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-goal-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-goal-data-'));
  writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
  // The check the model never reads: it is only ever run by the host.
  writeFileSync(join(folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL: sum(2, 3) = ' + sum(2, 3)); process.exit(1); }\nconsole.log('ok: sum(2, 3) = 5');\n");
  const git = (...args: string[]) => execFileSync('git', args, { cwd: folder, stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'fixture');
});
afterEach(async () => {
  const pid = hostPid(dataDir);
  if (pid !== undefined) process.kill(pid, 'SIGTERM');
  await server?.close();
  removeDataDir(dataDir, folder);
});

const isGrader = (request: RecordedRequest) => request.tools?.some((t) => t.function.name === 'record_verdict') === true;

/** The grader stand-in: it judges from the evidence pack it is sent (every step PASSED → satisfied). */
function grader(request: RecordedRequest): ScriptStep {
  const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
  const passed = !/→ FAILED/.test(prompt);
  return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: passed ? 'satisfied' : 'needs_revision', reason: passed ? 'the check passed' : 'the check failed' }] } }] };
}

/** Scripts the agent's turns in order; every grader call is answered by `grader`. */
function script(agentTurns: ScriptStep[]): void {
  let next = 0;
  const step = (request: RecordedRequest): ScriptStep => {
    if (isGrader(request)) return grader(request);
    const turn = agentTurns[next++];
    return turn ?? { text: 'I have nothing more to do.' };
  };
  for (let i = 0; i < 40; i++) server.push(step);
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, '--approve', 'auto', '--json', ...args], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

interface GoalOut {
  state: string;
  reason?: string;
  evidence: { steps: Array<{ command: string; exitCode: number | null; passed: boolean; outputTail: string }>; filesTouched: string[] } | null;
  contradictedClaims: Array<{ claim: string }>;
  criteria: Array<{ verdict?: string }>;
}

function lastGoal(stdout: string): GoalOut {
  const goals = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; goal?: GoalOut })
    .filter((e) => e.type === 'goal');
  expect(goals.length).toBeGreaterThan(0);
  return goals.at(-1)!.goal!;
}

const fix = (body: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' 'module.exports = (a, b) => ${body};' > sum.js` } }] });

describe('deepdesk run --goal', () => {
  beforeEach(async () => {
    server = await startScriptedServer();
  });

  it('a lying agent never reaches achieved: its evidence shows the failing exit code of the host’s run, its claim is contradicted, the round limit ends it unmet', async () => {
    script([{ text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }]);
    const r = await run(['--goal', 'make sum add', '--verify', CHECK]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/goal unmet/);
    const goal = lastGoal(r.stdout);
    expect(goal.state).toBe('unmet');
    expect(goal.evidence!.steps[0]).toMatchObject({ command: CHECK, exitCode: 1, passed: false });
    expect(goal.evidence!.steps[0]!.outputTail).toContain('FAIL: sum(2, 3) = -1');
    expect(goal.contradictedClaims.length).toBe(4);
    // The grader was sent the evidence, never the agent's claim.
    const graded = server.requests.filter(isGrader);
    expect(graded.length).toBe(4);
    for (const request of graded) {
      const sent = JSON.stringify(request.messages);
      expect(sent).toContain('FAIL: sum(2, 3) = -1');
      expect(sent).toContain('exit code 1');
      expect(sent).not.toContain('All tests pass');
    }
    expect(readFileSync(join(folder, 'sum.js'), 'utf8')).toContain('a - b');
  }, 120_000);

  it('on a terminal the host’s verify step asks as the goal’s check (step i of n, what refusing does); refused, the goal ends blocked', async () => {
    script([{ text: 'All tests pass.' }]);
    const term = onTerminal(['run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, '--goal', 'make sum add', '--verify', CHECK]);
    await waitFor(() => term.screen().includes('Approve?'), 60_000, 'the verify step to ask');
    expect(term.screen().replace(/\r?\n/g, ' ')).toContain('Goal check 1 of 1: the host runs this to check the goal, as the agent\'s own commands run. Refuse it and the goal ends blocked');
    term.write('n\r');
    expect(await term.exited).not.toBe(0);
    expect(term.screen()).toMatch(/goal blocked/);
  }, 120_000);

  it('an honest fix is achieved in one gate pass, and run exits 0', async () => {
    script([fix('a + b'), { text: 'Fixed sum.' }]);
    const r = await run(['--goal', 'make sum add', '--verify', CHECK]);
    expect(r.stderr).toMatch(/goal achieved/);
    expect(r.code).toBe(0);
    const goal = lastGoal(r.stdout);
    expect(goal.state).toBe('achieved');
    expect(goal.evidence!.steps[0]).toMatchObject({ exitCode: 0, passed: true });
    expect(goal.evidence!.filesTouched).toEqual(['sum.js']);
    expect(server.requests.filter(isGrader).length).toBe(1);
  }, 120_000);

  it('a wrong first attempt is sent back with the failing output, then achieved', async () => {
    script([fix('a * b'), { text: 'Done.' }, fix('a + b'), { text: 'Done now.' }]);
    const r = await run(['--goal', 'make sum add', '--verify', CHECK]);
    expect(r.code).toBe(0);
    expect(lastGoal(r.stdout).state).toBe('achieved');
    // The agent's turn after the first gate carried the host's failing output.
    const agentRequests = server.requests.filter((q) => !isGrader(q));
    const sentBack = agentRequests.find((q) => JSON.stringify(q.messages).includes('FAIL: sum(2, 3) = 6'));
    expect(sentBack).toBeDefined();
    expect(server.requests.filter(isGrader).length).toBe(2);
  }, 120_000);

  it('a loop ends stalled within a few turns, and nothing more is spent', async () => {
    const again: ScriptStep = { toolCalls: [{ name: 'execute', args: { command: CHECK } }] };
    script([again, again, again, again, again, again, again, again]);
    const r = await run(['--goal', 'make sum add', '--verify', CHECK]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/goal stalled/);
    expect(lastGoal(r.stdout).state).toBe('stalled');
    expect(server.requests.filter((q) => !isGrader(q)).length).toBe(3);
  }, 120_000);

  it('a verify step is contained as the agent’s own command: a write outside the folder is refused', async () => {
    const marker = join(tmpdir(), `deepdesk-goal-marker-${process.pid}-${Date.now()}`);
    script([{ text: 'Nothing to change.' }]);
    const r = await run(['--goal', 'touch a marker', '--verify', `touch ${marker}`]);
    expect(existsSync(marker)).toBe(false);
    expect(r.code).toBe(1);
    const goal = lastGoal(r.stdout);
    expect(goal.state).not.toBe('achieved');
    expect(goal.evidence!.steps[0]!.passed).toBe(false);
  }, 120_000);

  it('without --verify the agent drafts the goal (no terminal: accepted), the host checks it; drafting and grading are ledger rows with their purpose, exported with the goal', async () => {
    let drafted: RecordedRequest | undefined;
    let next = 0;
    const turns = [fix('a + b'), { text: 'Fixed.' }];
    for (let i = 0; i < 10; i++) {
      server.push((request) => {
        if (isGrader(request)) return grader(request);
        if (request.tools?.some((t) => t.function.name === 'propose_goal')) {
          drafted = request;
          return { toolCalls: [{ name: 'propose_goal', args: { criteria: ['sum(2, 3) is 5'], verify: [{ command: CHECK, expectedExitCode: 0 }] } }] };
        }
        return turns[next++] ?? { text: 'Nothing more.' };
      });
    }
    const r = await run(['--goal', 'make sum add']);
    expect(r.stderr).toContain('c1. sum(2, 3) is 5');
    expect(r.code).toBe(0);
    // The drafting call had read-only tools only.
    expect(drafted!.tools!.map((t) => t.function.name).sort()).toEqual(['glob', 'grep', 'ls', 'propose_goal', 'read_file']);
    const threadId = (JSON.parse(r.stdout.split('\n').find((l) => l.includes('"type":"goal"'))!) as { threadId: string }).threadId;
    const exported = execFileSync(process.execPath, [bin, 'threads', 'export', threadId, '--data-dir', dataDir], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '' } })
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; purpose?: string; goal?: GoalOut });
    expect(exported[0]!.goal!.state).toBe('achieved');
    expect(exported[0]!.goal!.criteria[0]!.verdict).toBe('satisfied');
    const purposes = exported.filter((l) => l.type === 'model_call').map((l) => l.purpose);
    expect(purposes).toContain('goal-draft');
    expect(purposes).toContain('grader');
    expect(purposes).toContain('agent');
  }, 120_000);

  it('a goal stopped by the budget ends budget-limited, recorded whole (state, reason, saved with the thread)', async () => {
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ prices: { 'openai-compatible:scripted-model': { input: 10, output: 10 } } }));
    script([{ ...fix('a + b'), usage: { promptTokens: 20_000, completionTokens: 10 } } as ScriptStep, { text: 'never asked' }]);
    const r = await run(['--max-cost', '0.21', '--goal', 'make sum add', '--verify', CHECK]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/goal budget-limited/);
    const goal = lastGoal(r.stdout);
    expect(goal.state).toBe('budget-limited');
    expect(goal.reason).toMatch(/budget/);
    const threadId = (JSON.parse(r.stdout.split('\n').find((l) => l.includes('"type":"goal"'))!) as { threadId: string }).threadId;
    const exported = JSON.parse(execFileSync(process.execPath, [bin, 'threads', 'export', threadId, '--data-dir', dataDir], { cwd: repo }).toString().split('\n')[0]!) as { goal: GoalOut };
    expect(exported.goal.state).toBe('budget-limited');
    expect(server.requests.filter((q) => !isGrader(q))).toHaveLength(1);
  }, 120_000);

  it('run --detach --goal returns with the thread id and the goal goes on without the terminal to achieved; attach prints the goal’s state first, then what the thread did', async () => {
    script([fix('a + b'), { text: 'Fixed.' }]);
    const r = await run(['--detach', '--goal', 'make sum add', '--verify', CHECK]);
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const goalOf = () => {
      const listed = JSON.parse(execFileSync(process.execPath, [bin, 'agents', '--json', '--data-dir', dataDir], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '' } }).toString()) as Array<{ threadId: string; goal?: { state: string } }>;
      return listed.find((a) => a.threadId === id)?.goal?.state;
    };
    await waitFor(() => goalOf() === 'achieved', 60_000, 'the detached goal to be achieved');
    expect(readFileSync(join(folder, 'sum.js'), 'utf8')).toContain('a + b');
    const attached = onTerminal(['attach', id, '--data-dir', dataDir]);
    expect(await attached.exited).toBe(0);
    const screen = attached.screen();
    expect(screen).toContain('goal achieved');
    expect(screen.indexOf('goal achieved')).toBeLessThan(screen.indexOf('make sum add'));
  }, 120_000);

  it('a killed host leaves no goal shown as running: the next host shows it paused', async () => {
    script([{ hang: true }]);
    const child = spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, '--approve', 'auto', '--json', '--goal', 'make sum add', '--verify', CHECK], {
      cwd: repo,
      env: { ...process.env, OPENAI_API_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const closed = new Promise((done) => child.on('close', done));
    let pid: number | undefined;
    // Waits for the host and its model call (a state); the bound is only against a hang.
    for (let i = 0; i < 600 && (pid === undefined || server.requests.length === 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      pid = hostPid(dataDir);
    }
    expect(server.requests.length).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    await closed;
    const agents = execFileSync(process.execPath, [bin, 'agents', '--json', '--data-dir', dataDir], { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '' } }).toString();
    const listed = JSON.parse(agents) as Array<{ goal?: { state: string; reason?: string } }>;
    expect(listed[0]!.goal!.state).toBe('paused');
    expect(listed[0]!.goal!.reason).toMatch(/host stopped/);
  }, 120_000);
});
