// `run --candidates N --agent A --model M --prompt P…` (SPEC §21 with §22) through the built bin:
// one candidate is Claude Code's real ACP adapter (against a scripted Anthropic server), the
// other Deepdesk's own agent on a scripted model; each gets its own instruction after the goal.
// The candidate whose change passes the hidden check ranks first whichever kind it is, the one
// that claims success while the check fails never first; the ranking names each one's agent or
// model. One small budget over a set with an agent candidate holds: the agent's calls hold the
// set's budget in its metering proxy before they go, a refused one never reaches its model, and
// the candidates end budget-limited with the set's spend within the budget plus one call.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../core/sandbox';
import { anthropicMessageStream, startScriptedAnthropicServer, type AnthropicReply } from '../core/models/testing/scripted-anthropic-server';
import type { RecordedRequest, ScriptStep } from '../core/models/testing/scripted-server';
import { installDir, knownAgent } from '../app/agents/vendors/catalog';
import { candidateSetJsonSchema, type CandidateSetJson } from '../app/session/candidate-ranking';
import { repo, useCliTestEnv } from './cli-harness.test-support';
import { hostPid } from './host-harness.test-support';

const t = useCliTestEnv('deepdesk-cand-agents');
const CHECK = 'node check.js';

function installClaude(): void {
  const root = installDir(t.dataDir, knownAgent('claude-code')!);
  mkdirSync(join(root, 'node_modules', '@zed-industries'), { recursive: true });
  symlinkSync(join(repo, 'node_modules', '@zed-industries', 'claude-code-acp'), join(root, 'node_modules', '@zed-industries', 'claude-code-acp'));
}

/** The hidden check (no model reads it): answer.txt must say 42. */
function fixture(): void {
  writeFileSync(join(t.folder, 'answer.txt'), 'unknown\n');
  writeFileSync(join(t.folder, 'check.js'), "const a = require('fs').readFileSync('answer.txt', 'utf8').trim();\nif (a !== '42') { console.error('FAIL: the answer is ' + a); process.exit(1); }\nconsole.log('ok');\n");
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: t.folder, stdio: 'ignore' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'fixture');
}

const isGrader = (request: RecordedRequest) => request.tools?.some((tool) => tool.function.name === 'record_verdict') === true;

function grader(request: RecordedRequest): ScriptStep {
  const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
  const passed = !/→ FAILED/.test(prompt);
  return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: passed ? 'satisfied' : 'needs_revision', reason: passed ? 'the check passed' : 'the check failed' }] } }] };
}

/** Where Claude Code works: its worktree (a candidate's, under the data folder), as its request names it. */
function workingDirectory(body: Record<string, unknown>): string {
  const text = JSON.stringify(body);
  const at = text.indexOf(join(t.dataDir, 'worktrees'));
  const found = at < 0 ? null : /^[^\s"\\]+/.exec(text.slice(at));
  // A side call (a title) names none; it writes nothing.
  if (!found) return t.folder;
  return found[0].split('/').slice(0, join(t.dataDir, 'worktrees').split('/').length + 1).join('/');
}

/** Claude Code writes `answer` into its worktree and says it is done (every round the same). */
function claudeWrites(answer: string): (body: Record<string, unknown>) => AnthropicReply {
  return (body) => {
    const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
    const write = tools.find((tool) => /(^|__)Write$/.test(tool.name));
    if (!write) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    const lastIsResult = JSON.stringify(messages.at(-1)?.content ?? '').includes('tool_result');
    if (lastIsResult) return anthropicMessageStream([{ text: 'All tests pass.' }], 'end_turn');
    return anthropicMessageStream([{ tool: write.name, id: `toolu_${messages.length}`, json: [JSON.stringify({ file_path: join(workingDirectory(body), 'answer.txt'), content: `${answer}\n` })] }], 'tool_use');
  };
}

/** Deepdesk's candidate writes `answer` with execute, then says it is done (every round). */
function deepdeskWrites(answer: string): (request: RecordedRequest) => ScriptStep {
  return (request) => {
    if (isGrader(request)) return grader(request);
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: 'All tests pass.' };
    return { toolCalls: [{ name: 'execute', args: { command: `echo ${answer} > answer.txt` } }] };
  };
}

function setOf(stdout: string): CandidateSetJson {
  return candidateSetJsonSchema.parse(JSON.parse(stdout.trim().split('\n').at(-1)!));
}

const firstUserText = (request: RecordedRequest) => String(request.messages.find((m) => m.role === 'user')?.content ?? '');

describe('run --candidates with an agent per candidate', async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('the passing candidate ranks first whether it is Claude Code or Deepdesk’s agent (roles swapped), the claimer never; each got its own --prompt; the ranking names the agent and the model', async () => {
    installClaude();
    fixture();
    const home = mkdtempSync(join(tmpdir(), 'cand-agents-home-'));
    try {
      // Deepdesk's candidate writes what the trial says (one script for both trials: the server's queue is one).
      let ownAnswer = '41';
      for (let i = 0; i < 100; i++) t.server.push((request: RecordedRequest) => deepdeskWrites(ownAnswer)(request));
      for (const claudePasses of [true, false]) {
        const claude = await startScriptedAnthropicServer(Array.from({ length: 80 }, () => claudeWrites(claudePasses ? '42' : '41')));
        t.server.requests.length = 0;
        ownAnswer = claudePasses ? '41' : '42';
        try {
          // Settings' model (here the environment's) is the grader of the agent candidate's goal.
          const env = { HOME: home, ANTHROPIC_BASE_URL: claude.url.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: 'the-persons-key', DEEPDESK_MODEL: 'openai-compatible:grader' };
          const r = await t.deepdesk(
            ['run', '--json', '--folder', t.folder, '--data-dir', t.dataDir, '--base-url', t.server.url, '--approve', 'auto', '--candidates', '2', '--agent', 'claude-code', '--model', 'openai-compatible:cand-d', '--prompt', 'ATTEMPT-ONE keep it short', '--prompt', 'ATTEMPT-TWO be thorough', '--goal', 'make the answer right', '--verify', CHECK],
            env,
          );
          expect(r.code, `${r.stderr}\n${r.stdout.slice(-3000)}`).toBe(0);
          const set = setOf(r.stdout);
          expect(set.ranking).toHaveLength(2);
          const [first, second] = set.ranking;
          const passer = claudePasses ? { agent: 'claude-code', model: null } : { agent: null, model: 'openai-compatible:cand-d' };
          const claimer = claudePasses ? { agent: null, model: 'openai-compatible:cand-d' } : { agent: 'claude-code', model: null };
          expect(first).toMatchObject({ rank: 1, state: 'achieved', verifyPassed: true, ...passer });
          expect(second).toMatchObject({ rank: 2, ...claimer });
          // Sent back round after round with the same failing change: unmet, or stalled by the repeat guard.
          expect(['unmet', 'stalled']).toContain(second!.state);
          expect(second!.contradictedClaims.length).toBeGreaterThan(0);
          expect(second!.verifyPassed).toBe(false);
          expect(readFileSync(join(first!.worktree.path, 'answer.txt'), 'utf8')).toBe('42\n');
          // Each candidate's own instruction came after the goal in its first message: the agent's the first, Deepdesk's the second.
          const claudeFirst = claude.bodies.find((b) => JSON.stringify(b.messages).includes('make the answer right'));
          expect(JSON.stringify(claudeFirst?.messages)).toContain('Instruction for this attempt: ATTEMPT-ONE keep it short');
          expect(JSON.stringify(claudeFirst?.messages)).not.toContain('ATTEMPT-TWO');
          const ownFirst = t.server.requests.find((q) => !isGrader(q))!;
          expect(firstUserText(ownFirst)).toContain('Instruction for this attempt: ATTEMPT-TWO be thorough');
          expect(firstUserText(ownFirst)).not.toContain('ATTEMPT-ONE');
          // The person's folder is untouched.
          expect(readFileSync(join(t.folder, 'answer.txt'), 'utf8')).toBe('unknown\n');
        } finally {
          await claude.close();
        }
      }
      // The table names the agent.
      const table = await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir], { HOME: home });
      expect(table.stdout).toContain('Claude Code');
    } finally {
      const pid = hostPid(t.dataDir);
      if (pid !== undefined) process.kill(pid, 'SIGTERM');
      rmSync(home, { recursive: true, force: true });
    }
  }, 240_000);

  it.skipIf(!available)('one small budget over a set with an agent candidate holds: its calls hold the set’s budget first, refused ones never reach its model, and the set ends budget-limited within the budget plus one call', async () => {
    installClaude();
    fixture();
    const home = mkdtempSync(join(tmpdir(), 'cand-agents-home-'));
    // Claude Code reads forever; each answer reports a large prompt, so its cost mounts quickly.
    let n = 0;
    const reads = (body: Record<string, unknown>): AnthropicReply => {
      const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
      const read = tools.find((tool) => /(^|__)Read$/.test(tool.name));
      const reply = read ? anthropicMessageStream([{ tool: read.name, id: `toolu_${++n}`, json: [JSON.stringify({ file_path: join(workingDirectory(body), 'answer.txt') })] }], 'tool_use') : anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      const start = (reply as { sse: Array<{ message?: { usage?: Record<string, number> } }> }).sse[0]!;
      start.message!.usage = { input_tokens: 10_000, output_tokens: 1 };
      return reply;
    };
    const claude = await startScriptedAnthropicServer(Array.from({ length: 200 }, () => reads));
    try {
      const env = { HOME: home, ANTHROPIC_BASE_URL: claude.url.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: 'the-persons-key', DEEPDESK_MODEL: 'openai-compatible:grader' };
      const budget = 0.5;
      const r = await t.deepdesk(
        ['run', '--json', '--folder', t.folder, '--data-dir', t.dataDir, '--base-url', t.server.url, '--approve', 'auto', '--candidates', '2', '--agent', 'claude-code', '--max-cost', String(budget), '--goal', 'make the answer right', '--verify', CHECK],
        env,
      );
      const set = setOf(r.stdout);
      expect(set.ranking.map((e) => [e.state, e.agent]), `${r.stderr}\n${JSON.stringify(set.ranking.map((e) => e.reason))}`).toEqual([
        ['budget-limited', 'claude-code'],
        ['budget-limited', 'claude-code'],
      ]);
      expect(set.budgetUsd).toBe(budget);
      const report = JSON.parse((await t.deepdesk(['usage', '--by', 'model', '--json', '--data-dir', t.dataDir], { HOME: home })).stdout) as { total: { calls: number; costUsd: number }; rows: Array<{ key: string; calls: number; costUsd: number }> };
      const calls = report.total.calls;
      expect(calls).toBeGreaterThan(2);
      const perCall = report.total.costUsd / calls;
      // SPEC §26: each call holds its worst case (Claude Code's max_tokens at its price, most of the budget) before it goes, so the spend stops well short of the budget.
      expect(report.total.costUsd).toBeGreaterThan(2 * perCall);
      expect(report.total.costUsd).toBeLessThanOrEqual(budget + perCall + 1e-9);
      expect(set.spentUsd!).toBeCloseTo(report.total.costUsd, 6);
      // Refused calls never reached the model: it got only the metered ones.
      expect(claude.bodies.length).toBe(calls);
      expect(r.code).toBe(1);
    } finally {
      await claude.close();
      const pid = hostPid(t.dataDir);
      if (pid !== undefined) process.kill(pid, 'SIGTERM');
      rmSync(home, { recursive: true, force: true });
    }
  }, 240_000);
});
