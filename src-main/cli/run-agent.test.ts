// `deepdesk run --agent NAME` (SPEC §22) through the built CLI and the agent host, with the
// scripted ACP agent added as a command in Settings › Agents (contained in the sandbox like
// any agent): its turn is the thread's (streamed, stored, exported, attached), a deny rule
// answers its request without asking (the file never written), its command asks on the
// terminal naming it and runs once approved, and `stop` cancels it and ends its whole tree.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../core/sandbox';
import { anthropicMessageStream, startScriptedAnthropicServer, type AnthropicReply } from '../core/models/testing/scripted-anthropic-server';
import { installDir, knownAgent } from '../app/agents/vendors/catalog';
import { repo, useCliTestEnv } from './cli-harness.test-support';
import { onTerminal, waitFor } from './host-harness.test-support';

const t = useCliTestEnv('deepdesk-run-agent');
const SCRIPT = join(repo, 'src-main/core/acp-client/testing/scripted-acp-agent.mjs');

/** Settings with the scripted agent added (a marker among its arguments finds its processes) and a deny rule. */
function settings(marker: string): void {
  writeFileSync(
    join(t.dataDir, 'settings.json'),
    JSON.stringify({
      rules: [{ operations: ['write', 'edit'], paths: ['/keep.txt'], decision: 'deny', description: 'keep.txt is mine' }],
      agents: { added: [{ name: 'scripted', label: 'Scripted Agent', command: process.execPath, args: [SCRIPT, `--marker=${marker}`], env: {} }] },
    }),
  );
}

/** The processes whose command line holds the marker (the agent, its sandbox's). */
function processesWith(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe('run --agent', async () => {
  const available = (await detectSandbox()).available;
  const base = () => ['--folder', t.folder, '--data-dir', t.dataDir, '--agent', 'scripted'];

  it.skipIf(!available)('a deny rule answers without asking (the file never written); the turn is the thread’s: streamed, exported, attached, and the agent is gone after', async () => {
    const marker = randomUUID();
    settings(marker);
    const ran = await t.deepdesk(['run', '--json', ...base(), `say hello from the agent ;; plan read it | write it ;; usage 1234 200000 ;; write ${join(t.folder, 'keep.txt')} overwritten`], {}, '');
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const events = ran.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; status?: string; name?: string; threadId: string; text?: string; todos?: unknown[]; contextTokens?: number; usage?: { inputTokens: number } });
    // The plan is the thread's todos; usage_update feeds the context meter only (no tokens counted as spent).
    expect(events.find((e) => e.type === 'todos')?.todos).toEqual([
      { content: 'read it', status: 'in_progress' },
      { content: 'write it', status: 'pending' },
    ]);
    expect(events.find((e) => e.type === 'usage')).toMatchObject({ contextTokens: 1234, contextWindow: 200000, usage: { inputTokens: 0, outputTokens: 0 } });
    const approvals = events.filter((e) => e.type === 'approval');
    expect(approvals.map((e) => e.status)).toEqual(['denied']);
    expect(events.some((e) => e.type === 'tool_call' && e.name === 'edit_file')).toBe(true);
    expect(events.find((e) => e.type === 'done')?.text).toBe('permission: no');
    expect(existsSync(join(t.folder, 'keep.txt'))).toBe(false);
    const threadId = events[0]!.threadId;
    const exported = (await t.deepdesk(['threads', 'export', threadId, '--format', 'md', '--data-dir', t.dataDir])).stdout;
    expect(exported).toContain('say hello from the agent');
    expect(exported).toContain('hello from the agent');
    expect(exported).toContain('edit_file');
    // Nothing of an added command's reaches the ledger: its model is its own business (not metered).
    const usage = JSON.parse((await t.deepdesk(['usage', '--json', '--data-dir', t.dataDir])).stdout) as { total: { calls: number } };
    expect(usage.total.calls).toBe(0);
    const attached = await t.deepdesk(['attach', threadId, '--data-dir', t.dataDir]);
    expect(attached.stdout).toContain('hello from the agent');
    expect(processesWith(marker)).toEqual([]);
  });

  it.skipIf(!available)('its command asks on the terminal naming the agent, and runs once approved (sandboxed, as Deepdesk’s execute)', async () => {
    const marker = randomUUID();
    settings(marker);
    const term = onTerminal(['run', ...base(), 'run echo ran > ran.txt']);
    await waitFor(() => term.screen().includes('Approve?'), 60_000, 'the agent’s question');
    expect(term.screen()).toContain('Scripted Agent asks: execute needs approval');
    expect(term.screen()).toContain('Command: echo ran > ran.txt');
    expect(existsSync(join(t.folder, 'ran.txt'))).toBe(false);
    term.write('y\r');
    expect(await term.exited).toBe(0);
    expect(readFileSync(join(t.folder, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(term.screen()).toContain('permission: once; exit 0');
    await waitFor(() => processesWith(marker).length === 0, 60_000, 'the agent’s processes to end');
  }, 300_000);

  it.skipIf(!available)('a call the agent tells by its title, then again with its command (as Claude Code tells its Bash), is one line on the terminal: its command', async () => {
    settings(randomUUID());
    const term = onTerminal(['run', ...base(), '--approve', 'auto', 'bash echo told-twice ;; say done']);
    expect(await term.exited).toBe(0);
    const calls = term.screen().split(/\r?\n/).filter((line) => line.startsWith('• '));
    expect(calls).toEqual([expect.stringMatching(/^• execute \{"command":"echo told-twice"/)]);
  });

  it.skipIf(!available)('stop cancels the turn and ends the agent’s whole tree (no process left, by pid); the thread keeps its agent', async () => {
    const marker = randomUUID();
    settings(marker);
    const id = (await t.deepdesk(['run', '--detach', ...base(), 'say started ;; own-run sleep 600'])).stdout.trim();
    await waitFor(() => processesWith(marker).length > 0 && execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' }).includes('sleep 600'), 60_000, 'the agent to start its sleep');
    const pids = processesWith(marker);
    const stopped = await t.deepdesk(['stop', id, '--data-dir', t.dataDir]);
    expect(stopped.code).toBe(0);
    await waitFor(() => pids.every((pid) => !existsSync(`/proc/${pid}`)) && !execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' }).includes('sleep 600'), 60_000, 'every process of the agent to end');
    const listed = JSON.parse((await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir])).stdout) as Array<{ threadId: string; state: string; agent?: string }>;
    expect(listed.find((a) => a.threadId === id)).toMatchObject({ state: 'stopped', agent: 'Scripted Agent' });
    expect((await t.deepdesk(['agents', '--data-dir', t.dataDir])).stdout).toContain('Scripted Agent');
  }, 300_000);

  it.skipIf(!available)('--mode edit decides for the agent as for Deepdesk: its write lands unasked, even under --approve deny; its command is refused there and nothing runs', async () => {
    settings(randomUUID());
    const marker = join(t.folder, 'marker-ran');
    const ran = await t.deepdesk(['run', '--json', ...base(), '--mode', 'edit', '--approve', 'deny', `write ${join(t.folder, 'edited.txt')} unasked ;; run touch ${marker}`], {}, '');
    expect(ran.code).toBe(0);
    const events = ran.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; status?: string; name?: string; text?: string });
    expect(events.filter((e) => e.type === 'approval').map((e) => [e.name, e.status])).toEqual([
      ['edit_file', 'approved'],
      ['execute', 'pending'],
      ['execute', 'rejected'],
    ]);
    expect(readFileSync(join(t.folder, 'edited.txt'), 'utf8')).toBe('unasked');
    expect(existsSync(marker)).toBe(false);
  });

  it('a command that does not take --agent refuses it; an unknown agent is bad usage', async () => {
    const refused = await t.deepdesk(['tools', '--folder', t.folder, '--agent', 'scripted'], {}, '');
    expect(refused.code).toBe(2);
    const unknown = await t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--agent', 'nobody', 'hi']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('there is no agent nobody');
  });

  it('Codex and Gemini CLI without the person\'s key are refused before they start: their own sign-ins go where the proxy cannot meter', async () => {
    settings(randomUUID());
    for (const name of ['codex', 'gemini']) {
      const known = knownAgent(name)!;
      const at = join(installDir(t.dataDir, known), 'node_modules', ...known.packageName.split('/').slice(0, -1));
      mkdirSync(at, { recursive: true });
      symlinkSync(join(repo, 'node_modules', known.packageName), join(at, known.packageName.split('/').at(-1)!));
      const ran = await t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--agent', name, 'hi'], { [known.keyVariable]: '', OPENAI_API_KEY: '', GEMINI_API_KEY: '', GOOGLE_API_KEY: '' }, '');
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`${known.label} needs your key: set ${known.keyVariable}`);
    }
  });

  it.skipIf(!available)('Claude Code’s real adapter: its Bash asks naming it and runs once approved, its Write to a denied file is refused without asking; ledger rows name it', async () => {
    // Installed in the data folder as Settings › Agents does, from the repository's pinned copy.
    const claude = knownAgent('claude-code')!;
    const at = join(installDir(t.dataDir, claude), 'node_modules', '@zed-industries');
    mkdirSync(at, { recursive: true });
    symlinkSync(join(repo, 'node_modules', '@zed-industries', 'claude-code-acp'), join(at, 'claude-code-acp'));
    settings(randomUUID());
    const home = mkdtempSync(join(tmpdir(), 'run-agent-home-'));
    const keep = join(t.folder, 'keep.txt');
    const script = (body: Record<string, unknown>): AnthropicReply => {
      const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
      const write = tools.find((tool) => /(^|__)Write$/.test(tool.name));
      const bash = tools.find((tool) => /(^|__)Bash$/.test(tool.name));
      if (!write || !bash) return anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      const results = (JSON.stringify(body.messages).match(/"tool_result"/g) ?? []).length;
      if (results === 0) return anthropicMessageStream([{ tool: bash.name, id: 'toolu_01', json: [JSON.stringify({ command: 'echo ran > ran.txt', description: 'Write ran.txt', timeout: 60000 })] }], 'tool_use');
      if (results === 1) return anthropicMessageStream([{ tool: write.name, id: 'toolu_02', json: [JSON.stringify({ file_path: keep, content: 'overwritten\n' })] }], 'tool_use');
      return anthropicMessageStream([{ text: 'All done here.' }], 'end_turn');
    };
    const model = await startScriptedAnthropicServer(Array.from({ length: 40 }, () => script));
    try {
      const env = { HOME: home, ANTHROPIC_BASE_URL: model.url.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: 'the-persons-key', DEEPDESK_HOME: t.dataDir };
      const term = onTerminal(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--agent', 'claude-code', 'write keep.txt, then run the command'], env);
      await waitFor(() => term.screen().includes('Approve?'), 60_000, 'Claude Code’s question').catch((err: Error) => {
        let log = '';
        try {
          log = readFileSync(join(t.dataDir, 'host', 'host.log'), 'utf8');
        } catch {
          // none
        }
        throw new Error(`${err.message}: ${term.screen()}\n${JSON.stringify(model.bodies.map((b) => JSON.stringify(b.messages).slice(-300)))}\n${log.slice(-3000)}`);
      });
      expect(term.screen()).toContain('Claude Code asks: execute needs approval');
      expect(term.screen()).toContain('echo ran > ran.txt');
      expect(existsSync(keep)).toBe(false);
      term.write('y\r');
      // Then its Write to the denied file is answered by the rule (Claude Code ends its turn at a refusal): no second question.
      expect(await term.exited).toBe(0);
      expect(existsSync(join(t.folder, 'ran.txt')), `${term.screen()}\n${JSON.stringify(model.bodies.map((b) => JSON.stringify(b.messages).slice(-600)))}`).toBe(true);
      expect(readFileSync(join(t.folder, 'ran.txt'), 'utf8')).toBe('ran\n');
      expect(term.screen().match(/Approve\?/g)).toHaveLength(1);
      expect(model.bodies.some((b) => JSON.stringify(b.messages).includes('keep.txt'))).toBe(true);
      expect(existsSync(keep)).toBe(false);
      expect(model.headers.every((h) => h['x-api-key'] === 'the-persons-key')).toBe(true);
      const usage = await t.deepdesk(['usage', '--by', 'model', '--json', '--data-dir', t.dataDir], { HOME: home });
      expect(usage.stdout).toContain('claude-code');
    } finally {
      await model.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);

  it.skipIf(!available)('Claude Code at its budget: its call waits paused (run exits 1 with the line, the agent kept in the host), Stop ends its tree (no process left); spend ≤ budget + one call', async () => {
    const claude = knownAgent('claude-code')!;
    const root = installDir(t.dataDir, claude);
    mkdirSync(join(root, 'node_modules', '@zed-industries'), { recursive: true });
    symlinkSync(join(repo, 'node_modules', '@zed-industries', 'claude-code-acp'), join(root, 'node_modules', '@zed-industries', 'claude-code-acp'));
    settings(randomUUID());
    writeFileSync(join(t.folder, 'a.txt'), 'some text\n');
    const home = mkdtempSync(join(tmpdir(), 'run-agent-home-'));
    let n = 0;
    const script = (body: Record<string, unknown>): AnthropicReply => {
      const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
      const read = tools.find((tool) => /(^|__)Read$/.test(tool.name));
      const reply = read ? anthropicMessageStream([{ tool: read.name, id: `toolu_${++n}`, json: [JSON.stringify({ file_path: join(t.folder, 'a.txt') })] }], 'tool_use') : anthropicMessageStream([{ text: 'A title' }], 'end_turn');
      // Each answer reports a large prompt ($0.15), so its cost mounts quickly.
      (reply as { sse: Array<{ message?: { usage?: Record<string, number> } }> }).sse[0]!.message!.usage = { input_tokens: 50_000, output_tokens: 1 };
      return reply;
    };
    const model = await startScriptedAnthropicServer(Array.from({ length: 60 }, () => script));
    try {
      const env = { HOME: home, ANTHROPIC_BASE_URL: model.url.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: 'the-persons-key' };
      // Each call holds its worst case first (SPEC §26: its prompt and its max_tokens, some $0.50 at Claude Code's max_tokens), so the budget must hold one.
      const budget = 1;
      const ran = await t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--agent', 'claude-code', '--thread', 'capped', '--max-cost', String(budget), 'read a.txt forever'], env, '');
      // SPEC §26: the call over the cap waits (the agent paused in the host, its process kept); run exits 1 with the line.
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(/deepdesk run: paused: this run's budget of \$1\.00 is spent/);
      const agents = JSON.parse((await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir], env)).stdout) as Array<{ threadId: string; state: string }>;
      expect(agents.find((a) => a.threadId === 'capped')?.state).toBe('budget');
      // Stop ends the paused agent's whole tree.
      expect((await t.deepdesk(['stop', 'capped', '--data-dir', t.dataDir], env)).code).toBe(0);
      await waitFor(() => !execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' }).includes(root), 60_000, 'Claude Code’s processes to end');
      const report = JSON.parse((await t.deepdesk(['usage', '--by', 'model', '--json', '--data-dir', t.dataDir], { HOME: home })).stdout) as { rows: Array<{ key: string; calls: number; costUsd: number }> };
      const row = report.rows.find((r) => r.key.includes('claude'))!;
      // SPEC §26: a call goes only while its worst case fits, so the spend stops short of the budget (it reached it before).
      expect(row.calls).toBeGreaterThanOrEqual(1);
      expect(row.costUsd).toBeLessThanOrEqual(budget + row.costUsd / row.calls + 1e-9);
      // Refused calls never reached the model: it got only the metered ones.
      expect(model.bodies.length).toBe(row.calls);
    } finally {
      await model.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);

  it.skipIf(!available)('Claude Code without the person’s key (its own sign-in): its calls are in the ledger unpriced, and the run says so', async () => {
    const claude = knownAgent('claude-code')!;
    const root = installDir(t.dataDir, claude);
    mkdirSync(join(root, 'node_modules', '@zed-industries'), { recursive: true });
    symlinkSync(join(repo, 'node_modules', '@zed-industries', 'claude-code-acp'), join(root, 'node_modules', '@zed-industries', 'claude-code-acp'));
    settings(randomUUID());
    const home = mkdtempSync(join(tmpdir(), 'run-agent-home-'));
    // The person's Claude sign-in, as `claude login` leaves it.
    const token = 'sk-ant-oat01-the-persons-subscription';
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude', '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: token, refreshToken: 'sk-ant-ort01-refresh', expiresAt: Date.now() + 86_400_000, scopes: ['user:inference'], subscriptionType: 'pro' } }));
    const model = await startScriptedAnthropicServer(Array.from({ length: 10 }, () => anthropicMessageStream([{ text: 'Hello there.' }], 'end_turn')));
    try {
      const env = { HOME: home, ANTHROPIC_BASE_URL: model.url.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: '' };
      const ran = await t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--agent', 'claude-code', 'hello'], env, '');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toContain('Hello there.');
      expect(ran.stderr).toContain('recorded unpriced');
      expect(model.headers.every((h) => h.authorization === `Bearer ${token}` && h['x-api-key'] === undefined)).toBe(true);
      const report = JSON.parse((await t.deepdesk(['usage', '--json', '--data-dir', t.dataDir], { HOME: home })).stdout) as { total: { calls: number; unpricedCalls: number } };
      expect(report.total.calls).toBeGreaterThan(0);
      expect(report.total.unpricedCalls).toBe(report.total.calls);
    } finally {
      await model.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);
});
