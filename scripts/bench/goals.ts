// Issue 63: the gate's cost. `deepdesk run --goal --verify` of the build in out/ on a git
// fixture against the scripted model: one wrong attempt sent back, then the fix. Per gate
// evaluation, its wall time (the host's verify steps, the diff, the grader call) and the
// grader's tokens, beside the agent's turn it checks (its model calls' time and tokens, from
// the thread's ledger rows as `threads export` gives them).

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startScriptedServer, type RecordedRequest, type ScriptStep } from '../../src-main/core/models/testing/scripted-server';
import { errorText, formatRatio } from './measure';
import type { BenchOptions } from './options';
import { progress, type Report, type Section } from './report';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/deepdesk.mjs');
const CHECK = 'node check.js';

interface Exported {
  type: string;
  purpose?: string;
  inputTokens?: number;
  outputTokens?: number;
  durationMs?: number;
  goal?: { state: string; evaluations: Array<{ durationMs: number; graderTokens: { input: number; output: number } }> };
}

async function benchGate(section: Section): Promise<void> {
  if (!existsSync(path.join(root, 'out/main/cli.js'))) throw new Error('build first (npx electron-vite build): the rows run `deepdesk run --goal` of out/');
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-goal-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-goal-data-'));
  const server = await startScriptedServer();
  try {
    writeFileSync(path.join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
    writeFileSync(path.join(folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL: ' + sum(2, 3)); process.exit(1); }\nconsole.log('ok');\n");
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', ...args], { cwd: folder, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'fixture');
    const fix = (body: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' 'module.exports = (a, b) => ${body};' > sum.js` } }] });
    const turns: ScriptStep[] = [fix('a * b'), { text: 'Done.' }, fix('a + b'), { text: 'Done.' }];
    for (let i = 0; i < 12; i++) {
      server.push((request: RecordedRequest): ScriptStep => {
        if (request.tools?.some((t) => t.function.name === 'record_verdict')) {
          const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ FAILED/.test(prompt) ? 'needs_revision' : 'satisfied', reason: 'evidence' }] } }] };
        }
        return turns.shift() ?? { text: 'Nothing more.' };
      });
    }
    progress('deepdesk run --goal --verify: a wrong attempt sent back, then the fix');
    const started = performance.now();
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, '--approve', 'auto', '--json', '--goal', 'make sum add', '--verify', CHECK], {
        env: { ...process.env, OPENAI_API_KEY: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${err.trim().split('\n').at(-1) ?? ''}`))));
    });
    const wall = performance.now() - started;
    const threadId = (JSON.parse(out.split('\n').find((l) => l.includes('"type":"goal"'))!) as { threadId: string }).threadId;
    const lines = execFileSync(process.execPath, [bin, 'threads', 'export', threadId, '--data-dir', dataDir], { env: { ...process.env, OPENAI_API_KEY: '' } })
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Exported);
    const goal = lines[0]!.goal!;
    const calls = lines.filter((l) => l.type === 'model_call');
    const agent = calls.filter((c) => c.purpose === 'agent');
    const graders = calls.filter((c) => c.purpose === 'grader');
    const evaluations = goal.evaluations;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    // Each evaluation checks one turn of the agent: 2 model calls (the change, then "Done.").
    const turnMs = agent.reduce((n, c) => n + (c.durationMs ?? 0), 0) / Math.max(1, evaluations.length);
    const turnTokens = agent.reduce((n, c) => n + (c.inputTokens ?? 0) + (c.outputTokens ?? 0), 0) / Math.max(1, evaluations.length);
    const gateMs = mean(evaluations.map((e) => e.durationMs));
    const gateTokens = mean(evaluations.map((e) => e.graderTokens.input + e.graderTokens.output));
    section.rows.push({
      name: `gate wall time per evaluation (${evaluations.length} evaluations: \`${CHECK}\` run by the host, the diff, the grader call), beside the agent's model calls of the turn it checks`,
      ours: `${gateMs.toFixed(0)} ms`,
      reference: `${turnMs.toFixed(0)} ms`,
      ratio: formatRatio(gateMs, Math.max(1, turnMs)),
    });
    section.rows.push({
      name: `grader tokens per evaluation (${graders.length} grader rows in the ledger), beside the agent's tokens of the turn it checks`,
      ours: `${gateTokens.toFixed(0)} tokens`,
      reference: `${turnTokens.toFixed(0)} tokens`,
      ratio: formatRatio(gateTokens, Math.max(1, turnTokens)),
    });
    section.rows.push({ name: `the whole run (host start included), ended ${goal.state}`, ours: `${wall.toFixed(0)} ms` });
    section.notes.push('the scripted model answers at once, so the agent turn times are the harness and the local server, not a provider; the gate time is mostly the verify step (a node process) and git (tree and diff with a temporary index)');
  } finally {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchGoals(report: Report, _options: BenchOptions): Promise<void> {
  const section = report.section('Issue 63 · goals: the gate’s cost per evaluation');
  await benchGate(section).catch((err: unknown) => section.rows.push({ name: 'goal gate', ours: `error: ${errorText(err)}` }));
}
