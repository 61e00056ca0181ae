// Issue 55: the context budget. What the first request for "hi" costs in a fresh git folder
// with default settings, beside what deepagents sends (captured at the scripted server and
// counted the same way, core/agent/testing/reference-request.ts); and what an AGENTS.md with
// one skill, and five MCP servers, add. Ours is `deepdesk run --print-request --json` of the
// build in out/: the request the run would send, from its own assembly.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { measureReferenceRequest } from '../../src-main/core/agent/testing/reference-request';
import { EVERYTHING } from '../../src-main/core/extensions/mcp/hub.test-support';
import { errorText, formatRatio } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report, type Section } from './report';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/deepdesk.mjs');
const PROMPT = 'hi';
const MCP_SERVERS = 5;

interface Printed {
  contextWindow: number;
  parts: Array<{ kind: string; name: string; tokens: number }>;
  base: number;
  total: number;
}

interface Setup {
  folder: string;
  dataDir: string;
  home: string;
  cleanup(): void;
}

/** A fresh git folder, an empty data folder and a home of no skills of the machine's person. */
function freshSetup(): Setup {
  const folder = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-budget-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-budget-data-'));
  const home = mkdtempSync(path.join(tmpdir(), 'deepdesk-bench-budget-home-'));
  execFileSync('git', ['init', '-q'], { cwd: folder });
  return { folder, dataDir, home, cleanup: () => [folder, dataDir, home].forEach((dir) => rmSync(dir, { recursive: true, force: true })) };
}

function printRequest(setup: Setup, args: string[] = []): Promise<Printed> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'run', '--print-request', '--json', '--folder', setup.folder, '--data-dir', setup.dataDir, ...args, PROMPT], {
      env: { ...process.env, HOME: setup.home, DEEPDESK_MODEL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Printed) : reject(new Error(`exit ${code}: ${err.trim().split('\n')[0] ?? ''}`))));
  });
}

const tokens = (n: number): string => `${n.toLocaleString('en-US')} tokens`;
const added = (printed: Printed, base: Printed): string => `${tokens(printed.total)} (+${(printed.total - base.total).toLocaleString('en-US')})`;

async function benchBudget(section: Section): Promise<void> {
  if (!existsSync(path.join(root, 'out/main/cli.js'))) throw new Error('build first (npx electron-vite build): the rows run `deepdesk run --print-request` of out/');
  progress('the first request for "hi": deepdesk (run --print-request) and deepagents (captured at the scripted server)');
  const reference = await measureReferenceRequest(PROMPT);
  const setup = freshSetup();
  try {
    const base = await printRequest(setup);
    section.rows.push({
      name: `first request for "${PROMPT}", fresh git folder, default settings (system prompt + tools + the message)`,
      ours: tokens(base.total),
      reference: tokens(reference.cost.total),
      ratio: formatRatio(base.total, reference.cost.total),
      target: '≤ reference',
      result: verdict(base.total <= reference.cost.total),
    });
    const system = base.parts.filter((p) => p.kind === 'system');
    const tools = base.parts.filter((p) => p.kind === 'tool');
    const sum = (parts: typeof system) => parts.reduce((n, p) => n + p.tokens, 0);
    section.rows.push({ name: `  system prompt (${system.map((p) => `${p.name} ${p.tokens}`).join(', ')})`, ours: tokens(sum(system)), reference: 'none' });
    section.rows.push({
      name: `  ${tools.length} tools (${tools.map((p) => `${p.name} ${p.tokens}`).join(', ')})`,
      ours: tokens(sum(tools)),
      reference: `${tokens(reference.cost.parts.filter((p) => p.kind === 'tool').reduce((n, p) => n + p.tokens, 0))} (${reference.cost.parts.filter((p) => p.kind === 'tool').length} tools)`,
    });

    progress('the same with an AGENTS.md and one skill');
    writeFileSync(path.join(setup.folder, 'AGENTS.md'), '# Project\n\nRun `npm test` before committing. Use tabs for indentation.\n');
    mkdirSync(path.join(setup.dataDir, 'skills', 'pdf'), { recursive: true });
    writeFileSync(path.join(setup.dataDir, 'skills', 'pdf', 'SKILL.md'), '---\nname: pdf\ndescription: Read, fill and merge PDF forms with the scripts beside this file.\n---\n# PDF\n\nUse scripts/fill.py.\n');
    const withMemory = await printRequest(setup);
    section.rows.push({ name: '  with an AGENTS.md (2 lines) and one skill', ours: added(withMemory, base), target: 'their parts only' });

    progress(`the same with ${MCP_SERVERS} MCP servers (server-everything)`);
    const config = path.join(setup.dataDir, 'bench-mcp.json');
    const server = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
    writeFileSync(config, JSON.stringify({ mcpServers: Object.fromEntries(Array.from({ length: MCP_SERVERS }, (_, i) => [`every${i}`, server])) }));
    const withMcp = await printRequest(setup, ['--mcp-config', config]);
    const mcpTools = withMcp.parts.filter((p) => p.kind === 'tool' && p.name.startsWith('mcp__')).length;
    const deferred = withMcp.parts.some((p) => p.name === 'tool_search');
    // The MCP tools' schemas are offered up to 10% of the window (mcp-tools.ts); past it they wait behind tool_search.
    const bound = Math.floor(withMcp.contextWindow * 0.1);
    section.rows.push({
      name: `  with ${MCP_SERVERS} MCP servers as well: ${mcpTools} tools offered${deferred ? ', the rest behind tool_search' : ''}`,
      ours: added(withMcp, withMemory),
      target: `≤ ${bound.toLocaleString('en-US')} (10% of the window), then tool_search`,
      result: verdict(withMcp.total - withMemory.total <= bound),
    });
  } finally {
    setup.cleanup();
  }
  section.notes.push(`both counted with o200k_base as the context meter counts a request: each system part's text, each tool's name, description and JSON Schema as sent, each message with its framing`);
  section.notes.push(`deepagents ${reference.version}: createDeepAgent with a ChatOpenAI at the scripted server and a FilesystemBackend on a fresh folder; its first request captured as sent`);
}

export async function benchRequestBudget(report: Report, _options: BenchOptions): Promise<void> {
  const section = report.section('Issue 55 · context budget: the request before the person says anything');
  await benchBudget(section).catch((err: unknown) => section.rows.push({ name: 'request budget', ours: `error: ${errorText(err)}` }));
}
