// `npm run bench`: runs the suites, then prints one table of medians, ratios and PASS/MISS
// per target. A miss never fails the process; only a broken benchmark run does.

import fs from 'node:fs';
import path from 'node:path';
import { benchCheckpoints } from './checkpoints';
import { benchCommandCheckpoints } from './command-checkpoints';
import { benchFiles } from './core-files';
import { benchSearch } from './core-search';
import { benchBigFolders } from './big-folders';
import { ensureEditFile, ensureFolder100k, ensureHuge, ensureRepo100k, ensureTree } from './gen-data';
import { benchHarness } from './harness';
import { benchMcpStart } from './mcp-start';
import { benchMcpClient } from './mcp-client';
import { benchMemories } from './memories';
import { restrictFetchToLoopback } from './loopback-only';
import { errorText } from './measure';
import { parseOptions, USAGE } from './options';
import { progress, Report } from './report';
import { benchSandbox } from './sandbox';
import { benchThreads } from './threads';
import { benchWindow } from './window';
import { benchMedia } from './media';
import { benchRemote } from './remote';
import { benchGitMount } from './git-mount';
import { benchSharedMemories } from './shared-memories';
import { benchUsageTelemetry } from './usage-telemetry';
import { benchAgentHost } from './agent-host';
import { benchWorktrees } from './worktrees';
import { benchParallel } from './parallel';
import { benchRequestBudget } from './request-budget';
import { benchProtocol } from './protocol';
import { benchSandboxes } from './sandboxes';
import { benchGoals } from './goals';
import { benchAcpAgents } from './acp-agents';
import { benchCandidates } from './candidates';

const repo = process.cwd();
const dataDir = path.join(repo, '.bench', 'data');

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${errorText(err)}\n${USAGE}`);
    return 2;
  }
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const options = parsed;
  restrictFetchToLoopback();
  fs.mkdirSync(dataDir, { recursive: true });
  const report = new Report();
  const started = performance.now();

  const guarded = async (name: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      report.section(name).rows.push({ name: 'suite failed', ours: `error: ${errorText(err)}` });
    }
  };

  if (options.suites.has('core')) {
    await guarded('Issue 2 · search', async () => benchSearch(report, await ensureTree(dataDir, options.regenerate), options));
    await guarded('Issue 2 · files', async () =>
      benchFiles(report, { huge: await ensureHuge(dataDir, options.regenerate), edit: await ensureEditFile(dataDir, options.regenerate) }, options),
    );
  }
  if (options.suites.has('harness')) {
    await guarded('Issue 3 · harness', () => benchHarness(report, options));
    await guarded('Issue 18 · MCP client', () => benchMcpClient(report, options));
  }
  if (options.suites.has('window')) await guarded('Issue 4 · window', () => benchWindow(report, options, repo));
  else if (options.suites.has('chat')) await guarded('Issue 4 · window', () => benchWindow(report, options, repo, { only: 'chat' }));
  if (options.suites.has('sandbox')) {
    await guarded('Issue 11 · sandbox', () => benchSandbox(report, options, async () => (await ensureFolder100k(dataDir, options.regenerate)).dir));
    await guarded('Issue 18 · MCP server start', () => benchMcpStart(report, options));
  }
  if (options.suites.has('folders')) {
    await guarded('Issue 13 · big folders', async () =>
      benchBigFolders(report, options, repo, {
        tree20k: (await ensureTree(dataDir, options.regenerate)).dir,
        folder100k: (await ensureFolder100k(dataDir, options.regenerate)).dir,
        repo100k: (await ensureRepo100k(dataDir, options.regenerate)).dir,
      }),
    );
  }
  if (options.suites.has('checkpoints')) {
    await guarded('Issue 12 · checkpoints', async () => benchCheckpoints(report, await ensureTree(dataDir, options.regenerate), options));
    await guarded('Issue 17 · command checkpoints', async () =>
      benchCommandCheckpoints(report, options, {
        tree20k: (await ensureTree(dataDir, options.regenerate)).dir,
        folder100k: (await ensureFolder100k(dataDir, options.regenerate)).dir,
      }),
    );
  }
  if (options.suites.has('threads')) await guarded('Issue 17 · threads', () => benchThreads(report, options, dataDir));

  if (options.suites.has('memories')) await guarded('Issue 17 · memories', () => benchMemories(report, options, dataDir));
  if (options.suites.has('media')) await guarded('Issue 20 · media', () => benchMedia(report, options));
  if (options.suites.has('remote')) await guarded('Issue 21 · remote', () => benchRemote(report, options));
  if (options.suites.has('git-mount')) await guarded('Issue 22 · git mount', () => benchGitMount(report, options));
  if (options.suites.has('shared-memories')) await guarded('Issue 22 · shared memories', () => benchSharedMemories(report, options, dataDir));
  if (options.suites.has('usage')) await guarded('Issue 41 · usage and telemetry', () => benchUsageTelemetry(report, options));
  if (options.suites.has('host')) await guarded('Issue 39 · the agent host', () => benchAgentHost(report, options));
  else if (options.suites.has('warm-run')) await guarded('Issue 39 · the agent host', () => benchAgentHost(report, options, { only: 'warm-run' }));
  if (options.suites.has('worktrees')) await guarded('Issue 40 · worktrees', () => benchWorktrees(report, options));
  if (options.suites.has('parallel')) await guarded('Issue 40 · threads at the same time', () => benchParallel(report, options, repo));
  if (options.suites.has('budget')) await guarded('Issue 55 · context budget', () => benchRequestBudget(report, options));
  if (options.suites.has('protocol')) await guarded('Issue 54 · the Agent Protocol', () => benchProtocol(report, options));
  else if (options.suites.has('get-state')) await guarded('Issue 54 · the Agent Protocol', () => benchProtocol(report, options, { only: 'get-state' }));
  if (options.suites.has('sandboxes')) await guarded('Issue 53 · sandbox providers', () => benchSandboxes(report, options));
  if (options.suites.has('goals')) await guarded('Issue 63 · goals', () => benchGoals(report, options));
  if (options.suites.has('agents')) await guarded('Issue 65 · other agents', () => benchAcpAgents(report, options));
  if (options.suites.has('candidates')) await guarded('Issue 64 · candidates', () => benchCandidates(report, options));

  const table = report.render();
  process.stdout.write(`\n${table}\n\nmedians of up to ${options.runs} runs; ratio = deepdesk ÷ other (below 1 is faster); total ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
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
