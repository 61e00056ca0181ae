// `npm run bench`: runs the suites, then prints one table of medians, ratios and PASS/MISS
// per target. A miss never fails the process; only a broken benchmark run does.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { restrictFetchToLoopback } from './loopback-only';
import { errorText } from './measure';
import { parseOptions, USAGE, type BenchOptions, type Suite } from './options';
import { progress, Report, type Section } from './report';

const repo = process.cwd();
const dataDir = path.join(repo, '.bench', 'data');

/**
 * One part of the bench: run when one of its suites is asked for (`unless` one that runs more
 * of the same). Each part runs in a Node process of its own, loading only its own modules:
 * in one process for all, the bench's own heap grew to about 1 GB, and every process a
 * later part started (a fork of that heap) took 7–8 ms instead of 1–3, in its rows and its
 * floors alike; a row's figures then depended on the parts before it.
 */
interface Part {
  title: string;
  suites: Suite[];
  unless?: Suite;
  run: (report: Report, options: BenchOptions) => Promise<void>;
}

const PARTS: Part[] = [
  {
    title: 'Issue 2 · search',
    suites: ['core'],
    run: async (report, options) => {
      const [{ benchSearch }, { ensureTree }] = await Promise.all([import('./core-search'), import('./gen-data')]);
      await benchSearch(report, await ensureTree(dataDir, options.regenerate), options);
    },
  },
  {
    title: 'Issue 2 · files',
    suites: ['core'],
    run: async (report, options) => {
      const [{ benchFiles }, { ensureHuge, ensureEditFile }] = await Promise.all([import('./core-files'), import('./gen-data')]);
      await benchFiles(report, { huge: await ensureHuge(dataDir, options.regenerate), edit: await ensureEditFile(dataDir, options.regenerate) }, options);
    },
  },
  { title: 'Issue 3 · harness', suites: ['harness'], run: async (report, options) => (await import('./harness')).benchHarness(report, options) },
  { title: 'Issue 18 · MCP client', suites: ['harness'], run: async (report, options) => (await import('./mcp-client')).benchMcpClient(report, options) },
  { title: 'Issue 4 · window', suites: ['window'], run: async (report, options) => (await import('./window')).benchWindow(report, options, repo) },
  { title: 'Issue 4 · window', suites: ['chat'], unless: 'window', run: async (report, options) => (await import('./window')).benchWindow(report, options, repo, { only: 'chat' }) },
  {
    title: 'Issue 11 · sandbox',
    suites: ['sandbox'],
    run: async (report, options) => {
      const [{ benchSandbox }, { ensureFolder100k }] = await Promise.all([import('./sandbox'), import('./gen-data')]);
      await benchSandbox(report, options, async () => (await ensureFolder100k(dataDir, options.regenerate)).dir);
    },
  },
  {
    title: 'Issue 82 · a sandboxed step through deepdesk run',
    suites: ['sandbox', 'run-step'],
    run: async (report, options) => {
      const [{ benchRunStep }, { ensureRepo100k }] = await Promise.all([import('./run-step'), import('./gen-data')]);
      await benchRunStep(report, options, async () => (await ensureRepo100k(dataDir, options.regenerate)).dir);
    },
  },
  { title: 'Issue 82 · the window answers', suites: ['window', 'answers'], run: async (report) => (await import('./window-answers')).benchWindowAnswers(report, repo) },
  { title: 'Issues 79 and 82 · Markdown in the window', suites: ['window', 'markdown'], run: async (report) => (await import('./markdown-window')).benchMarkdownWindow(report, repo) },
  { title: 'Issue 82 · an idle window', suites: ['window', 'idle'], run: async (report) => (await import('./idle-window')).benchIdleWindow(report, repo) },
  { title: 'Issue 82 · a long thread in the window', suites: ['window', 'long-window'], run: async (report) => (await import('./long-thread-window')).benchLongThreadWindow(report, repo) },
  { title: 'Issue 18 · MCP server start', suites: ['sandbox'], run: async (report, options) => (await import('./mcp-start')).benchMcpStart(report, options) },
  {
    title: 'Issue 13 · big folders',
    suites: ['folders'],
    run: async (report, options) => {
      const [{ benchBigFolders }, data] = await Promise.all([import('./big-folders'), import('./gen-data')]);
      await benchBigFolders(report, options, repo, {
        tree20k: (await data.ensureTree(dataDir, options.regenerate)).dir,
        folder100k: (await data.ensureFolder100k(dataDir, options.regenerate)).dir,
        repo100k: (await data.ensureRepo100k(dataDir, options.regenerate)).dir,
      });
    },
  },
  {
    title: 'Issue 12 · checkpoints',
    suites: ['checkpoints'],
    run: async (report, options) => {
      const [{ benchCheckpoints }, { ensureTree }] = await Promise.all([import('./checkpoints'), import('./gen-data')]);
      await benchCheckpoints(report, await ensureTree(dataDir, options.regenerate), options);
    },
  },
  {
    title: 'Issue 17 · command checkpoints',
    suites: ['checkpoints'],
    run: async (report, options) => {
      const [{ benchCommandCheckpoints }, data] = await Promise.all([import('./command-checkpoints'), import('./gen-data')]);
      await benchCommandCheckpoints(report, options, {
        tree20k: (await data.ensureTree(dataDir, options.regenerate)).dir,
        folder100k: (await data.ensureFolder100k(dataDir, options.regenerate)).dir,
      });
    },
  },
  { title: 'Issue 17 · threads', suites: ['threads'], run: async (report, options) => (await import('./threads')).benchThreads(report, options, dataDir) },
  { title: 'Issue 17 · memories', suites: ['memories'], run: async (report, options) => (await import('./memories')).benchMemories(report, options, dataDir) },
  { title: 'Issue 20 · media', suites: ['media'], run: async (report, options) => (await import('./media')).benchMedia(report, options) },
  { title: 'Issue 21 · remote', suites: ['remote'], run: async (report, options) => (await import('./remote')).benchRemote(report, options) },
  { title: 'Issue 22 · git mount', suites: ['git-mount'], run: async (report, options) => (await import('./git-mount')).benchGitMount(report, options) },
  { title: 'Issue 22 · shared memories', suites: ['shared-memories'], run: async (report, options) => (await import('./shared-memories')).benchSharedMemories(report, options, dataDir) },
  { title: 'Issue 41 · usage and telemetry', suites: ['usage'], run: async (report, options) => (await import('./usage-telemetry')).benchUsageTelemetry(report, options) },
  { title: 'Issue 39 · the agent host', suites: ['host'], run: async (report, options) => (await import('./agent-host')).benchAgentHost(report, options) },
  { title: 'Issue 39 · the agent host', suites: ['warm-run'], unless: 'host', run: async (report, options) => (await import('./agent-host')).benchAgentHost(report, options, { only: 'warm-run' }) },
  { title: 'Issue 98 · a lighter host', suites: ['host', 'host-memory'], run: async (report) => (await import('./host-memory')).benchHostMemory(report) },
  { title: 'Issue 40 · worktrees', suites: ['worktrees'], run: async (report, options) => (await import('./worktrees')).benchWorktrees(report, options) },
  { title: 'Issue 81 · provenance', suites: ['provenance'], run: async (report, options) => (await import('./provenance')).benchProvenance(report, options) },
  { title: 'Issue 40 · threads at the same time', suites: ['parallel'], run: async (report, options) => (await import('./parallel')).benchParallel(report, options, repo) },
  { title: 'Issue 55 · context budget', suites: ['budget'], run: async (report, options) => (await import('./request-budget')).benchRequestBudget(report, options) },
  { title: 'Issue 54 · the Agent Protocol', suites: ['protocol'], run: async (report, options) => (await import('./protocol')).benchProtocol(report, options) },
  { title: 'Issue 54 · the Agent Protocol', suites: ['get-state'], unless: 'protocol', run: async (report, options) => (await import('./protocol')).benchProtocol(report, options, { only: 'get-state' }) },
  { title: 'Issue 53 · sandbox providers', suites: ['sandboxes'], run: async (report, options) => (await import('./sandboxes')).benchSandboxes(report, options) },
  { title: 'Issue 63 · goals', suites: ['goals'], run: async (report, options) => (await import('./goals')).benchGoals(report, options) },
  { title: 'Issue 65 · other agents', suites: ['agents'], run: async (report, options) => (await import('./acp-agents')).benchAcpAgents(report, options) },
  { title: 'Issue 80 · auto-review', suites: ['review'], run: async (report, options) => (await import('./review')).benchReview(report, options) },
  { title: 'Issue 64 · candidates', suites: ['candidates'], run: async (report, options) => (await import('./candidates')).benchCandidates(report, options) },
];

/** The parts the options ask for, in the table's order. */
function selectedParts(suites: ReadonlySet<Suite>): number[] {
  return PARTS.flatMap((part, i) => (part.suites.some((s) => suites.has(s)) && !(part.unless !== undefined && suites.has(part.unless)) ? [i] : []));
}

/** In the part's own process: runs it and writes its sections, as JSON, to `out`. */
async function runPart(index: number, options: BenchOptions, out: string): Promise<void> {
  const part = PARTS[index];
  if (!part) throw new Error(`no bench part ${index}`);
  restrictFetchToLoopback();
  const report = new Report();
  try {
    await part.run(report, options);
  } catch (err) {
    report.section(part.title).rows.push({ name: 'suite failed', ours: `error: ${errorText(err)}` });
  }
  fs.writeFileSync(out, JSON.stringify(report.sections));
}

/** Runs one part in a Node process of its own (this script again, with --part; never --regenerate, see main) and takes its sections. */
async function partInProcess(index: number, options: BenchOptions): Promise<Section[]> {
  const part = PARTS[index]!;
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-bench-part-')), 'sections.json');
  try {
    const args = [...process.execArgv, fileURLToPath(import.meta.url), '--part', String(index), '--part-out', out, '--runs', String(options.runs)];
    const child = spawn(process.execPath, args, { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] });
    const code = await new Promise<number | string>((resolve) => {
      child.once('error', (err) => resolve(errorText(err)));
      child.once('exit', (c, signal) => resolve(c ?? signal ?? 1));
    });
    try {
      return JSON.parse(fs.readFileSync(out, 'utf8')) as Section[];
    } catch {
      return [{ title: part.title, rows: [{ name: 'suite failed', ours: `error: its process ended (${code}) without results` }], notes: [] }];
    }
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  // Internal: one part in this process (partInProcess).
  const partAt = argv.indexOf('--part');
  const outAt = argv.indexOf('--part-out');
  const part = partAt >= 0 ? Number(argv[partAt + 1]) : undefined;
  const out = outAt >= 0 ? argv[outAt + 1] : undefined;
  const internal = [partAt, outAt].filter((at) => at >= 0).flatMap((at) => [at, at + 1]);
  const rest = argv.filter((_, i) => !internal.includes(i));
  let parsed;
  try {
    parsed = parseOptions(rest);
    if (part !== undefined && (!Number.isInteger(part) || out === undefined)) throw new Error('--part needs a number and --part-out');
  } catch (err) {
    process.stderr.write(`${errorText(err)}\n${USAGE}`);
    return 2;
  }
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const options = parsed;
  fs.mkdirSync(dataDir, { recursive: true });
  if (part !== undefined && out !== undefined) {
    await runPart(part, options, out);
    return 0;
  }
  // Rebuilt on first need, by whichever part needs it first (each part's process sees what the one before made).
  if (options.regenerate) for (const name of fs.readdirSync(dataDir)) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
  const report = new Report();
  const started = performance.now();
  for (const index of selectedParts(options.suites)) report.sections.push(...(await partInProcess(index, options)));

  const table = report.render();
  process.stdout.write(`\n${table}\n\nmedians of up to ${options.runs} runs; ratio = deepdesk ÷ other (below 1 is faster); each part in a Node process of its own; total ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  fs.writeFileSync(path.join(repo, '.bench', 'last-results.txt'), table + '\n');
  progress('table saved to .bench/last-results.txt');
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
    // Stray handles (a browser, a server) must not keep a finished run alive.
    setTimeout(() => process.exit(code), 2_000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
