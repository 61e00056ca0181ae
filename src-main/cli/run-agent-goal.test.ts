// A goal on another agent's thread (SPEC §21 with §22), through the built CLI and the agent host:
// Claude Code's real ACP adapter against a scripted Anthropic server writes a wrong answer and
// claims it is done; the host — not the agent — runs the hidden check through Deepdesk's own
// execute path, Deepdesk's grader (a scripted OpenAI-compatible model, metered) judges, and the
// agent is prompted again with the failing output; its fix then passes and the goal is achieved.
// The goal is the thread's, stored and shown as a Deepdesk goal thread's (export, agents --json).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../core/sandbox';
import { anthropicMessageStream, startScriptedAnthropicServer, type AnthropicReply } from '../core/models/testing/scripted-anthropic-server';
import { startScriptedServer, type RecordedRequest, type ScriptStep } from '../core/models/testing/scripted-server';
import { installDir, knownAgent } from '../app/agents/vendors/catalog';
import { repo, useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-agent-goal');
const CHECK = 'node check.js';
const REVISION = 'The host checked the goal and it is not met yet';

/** The grader stand-in judges from the evidence pack it is sent: every step passed → satisfied. */
function grader(request: RecordedRequest): ScriptStep {
  const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
  const passed = !/→ FAILED/.test(prompt);
  return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: passed ? 'satisfied' : 'needs_revision', reason: passed ? 'the check passed' : 'the check failed' }] } }] };
}

/** Claude Code installed in the data folder as Settings › Agents does, from the repository's pinned copy. */
function installClaude(): string {
  const root = installDir(t.dataDir, knownAgent('claude-code')!);
  mkdirSync(join(root, 'node_modules', '@zed-industries'), { recursive: true });
  symlinkSync(join(repo, 'node_modules', '@zed-industries', 'claude-code-acp'), join(root, 'node_modules', '@zed-industries', 'claude-code-acp'));
  return root;
}

/** The hidden check (the scripted agent never reads it): answer.txt must say 42. */
function fixture(): void {
  writeFileSync(join(t.folder, 'answer.txt'), 'unknown\n');
  writeFileSync(join(t.folder, 'check.js'), "const a = require('fs').readFileSync('answer.txt', 'utf8').trim();\nif (a !== '42') { console.error('FAIL: the answer is ' + a); process.exit(1); }\nconsole.log('ok');\n");
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: t.folder, stdio: 'ignore' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'fixture');
}

/**
 * Claude Code's model: writes 41 and claims success; sent back with the host's evidence, writes 42.
 * Its side calls (a title, no tools) get a short text.
 */
function claudeScript(folder: string): (body: Record<string, unknown>) => AnthropicReply {
  return (body) => {
    const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
    const write = tools.find((tool) => /(^|__)Write$/.test(tool.name));
    if (!write) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
    const text = JSON.stringify(body.messages);
    const results = (text.match(/"tool_result"/g) ?? []).length;
    const sentBack = text.includes(REVISION);
    const put = (answer: string, id: string) => anthropicMessageStream([{ tool: write.name, id, json: [JSON.stringify({ file_path: join(folder, 'answer.txt'), content: `${answer}\n` })] }], 'tool_use');
    if (!sentBack) return results === 0 ? put('41', 'toolu_01') : anthropicMessageStream([{ text: 'Done. All tests pass.' }], 'end_turn');
    return results <= 1 ? put('42', 'toolu_02') : anthropicMessageStream([{ text: 'Fixed: the answer is 42 now.' }], 'end_turn');
  };
}

describe('run --agent with --goal', async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('Claude Code claims done while the hidden check fails: not achieved, prompted again with the failing output; its fix is achieved, the goal stored as a Deepdesk goal thread’s', async () => {
    installClaude();
    fixture();
    const home = mkdtempSync(join(tmpdir(), 'run-agent-goal-home-'));
    const claude = await startScriptedAnthropicServer(Array.from({ length: 60 }, () => claudeScript(t.folder)));
    const deepdesk = await startScriptedServer();
    for (let i = 0; i < 20; i++) deepdesk.push((request: RecordedRequest) => (request.tools?.some((tool) => tool.function.name === 'record_verdict') ? grader(request) : { text: 'not the grader' }));
    try {
      const env = { HOME: home, ANTHROPIC_BASE_URL: claude.url.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: 'the-persons-key', DEEPDESK_MODEL: 'openai-compatible:grader', OPENAI_API_KEY: '' };
      const ran = await t.deepdesk(['run', '--json', '--folder', t.folder, '--data-dir', t.dataDir, '--base-url', deepdesk.url, '--approve', 'auto', '--agent', 'claude-code', '--goal', 'make the answer right', '--verify', CHECK], env, '');
      const events = ran.stdout
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { type: string; threadId: string; goal?: { state: string; contradictedClaims: Array<{ claim: string; failingSteps: Array<{ command: string; exitCode: number | null }> }>; evidence: { steps: Array<{ passed: boolean; outputTail: string }> } | null } });
      const goals = events.filter((e) => e.type === 'goal').map((e) => e.goal!);
      expect(ran.code, `${ran.stderr}\n${ran.stdout.slice(-2000)}`).toBe(0);
      // First the host's own run of the check failed, whatever the agent said.
      const checked = goals.filter((g) => g.evidence !== null);
      expect(checked[0]!.state).toBe('pursuing');
      expect(checked[0]!.evidence!.steps[0]).toMatchObject({ passed: false });
      expect(checked[0]!.evidence!.steps[0]!.outputTail).toContain('FAIL: the answer is 41');
      const last = goals.at(-1)!;
      expect(last.state).toBe('achieved');
      expect(last.contradictedClaims).toHaveLength(1);
      expect(last.contradictedClaims[0]).toMatchObject({ claim: 'Done. All tests pass.', failingSteps: [{ command: CHECK, exitCode: 1 }] });
      // The agent was prompted again with the host's failing output, and only then wrote the fix.
      const sentBack = claude.bodies.filter((b) => JSON.stringify(b.messages).includes(REVISION));
      expect(sentBack.length).toBeGreaterThan(0);
      expect(JSON.stringify(sentBack[0]!.messages)).toContain('FAIL: the answer is 41');
      expect(readFileSync(join(t.folder, 'answer.txt'), 'utf8')).toBe('42\n');
      // The grader was Deepdesk's model, called once per check, metered as `grader` rows.
      expect(deepdesk.requests.filter((r) => r.tools?.some((tool) => tool.function.name === 'record_verdict'))).toHaveLength(2);
      const threadId = events[0]!.threadId;
      const usage = JSON.parse((await t.deepdesk(['usage', '--by', 'model', '--json', '--data-dir', t.dataDir], { HOME: home })).stdout) as { rows: Array<{ key: string; calls: number }> };
      expect(usage.rows.some((r) => r.key.includes('grader'))).toBe(true);
      expect(usage.rows.some((r) => r.key.includes('claude'))).toBe(true);
      // Stored and shown as any goal thread's.
      const exported = (await t.deepdesk(['threads', 'export', threadId, '--format', 'jsonl', '--data-dir', t.dataDir], { HOME: home })).stdout;
      expect(exported).toContain('"state":"achieved"');
      expect(exported).toContain('contradictedClaims');
      const listed = JSON.parse((await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir], { HOME: home })).stdout) as Array<{ threadId: string; goalState?: string; agent?: string; goal?: { state: string } }>;
      const row = listed.find((a) => a.threadId === threadId);
      expect(row).toBeDefined();
      expect(JSON.stringify(row)).toContain('achieved');
      expect(row!.agent).toBe('Claude Code');
    } finally {
      await claude.close();
      await deepdesk.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);
});
