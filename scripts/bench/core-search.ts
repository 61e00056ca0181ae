// Issue 2, search: grep and glob over the generated tree with Deepdesk's FilesystemBackend
// (the ripgrep it ships, and the Node fallback), that ripgrep run directly with the same
// filters (the floor),
// and the deepagents FilesystemBackend (the reference). The four run in rounds, so that
// load from elsewhere on the machine falls on all of them alike.

import { spawn, spawnSync } from 'node:child_process';
import { FilesystemBackend } from '../../src-main/core/backends/filesystem/filesystem';
import { bundledRipgrep, findRipgrep } from '../../src-main/core/backends/filesystem/ripgrep-binary';
import type { GlobResult, GrepResult } from '../../src-main/core/backends/protocol';
import { GREP_PATTERNS, type TreeData } from './gen-data';
import { type Contender, type ContenderResult, formatMs, formatRatio, median, timeInterleaved } from './measure';
import type { BenchOptions } from './options';
import { loadReference } from './reference';
import { progress, verdict, type Report, type Row } from './report';

const MAX_COUNT = 1000;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const ROUND_BUDGET_MS = 25_000;

/**
 * The filters fs-ripgrep.ts gives ripgrep for a folder holding `.git` (not exported there,
 * so repeated here; keep in step): only the tree's .gitignore files, dot files seen, .git skipped.
 */
const RG_FILTER_FLAGS = [
  '--no-config', '--no-messages', '--hidden', '--no-ignore-global',
  '--no-ignore-exclude', '--no-ignore-dot', '--no-ignore-parent', '-g', '!.git',
];

function rgGrepArgs(pattern: string, dir: string): string[] {
  return [
    ...RG_FILTER_FLAGS, '-F', '-a', '-E', 'none', '-n', '-H', '--null', '--no-heading', '--color', 'never',
    '--max-filesize', String(MAX_FILE_BYTES), '-m', String(MAX_COUNT + 1), '--', pattern, dir,
  ];
}

function rgGlobArgs(pattern: string, dir: string): string[] {
  return [...RG_FILTER_FLAGS, '--files', '--null', '-g', pattern, '--', dir];
}

/** Runs rg, draining its output as a caller would; resolves to a description of what it printed. */
function runRg(rg: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    child.stdout.on('data', (d: Buffer) => (bytes += d.length));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve(`${bytes} bytes`) : reject(new Error(`rg exited with ${code}`))));
  });
}

function ripgrepVersion(rg: string): string {
  return spawnSync(rg, ['--version'], { encoding: 'utf8' }).stdout?.split('\n')[0] ?? 'version unknown';
}

function described(r: { error?: string; matches?: unknown[]; files?: unknown[]; truncated?: boolean }, unit: string): string {
  if (r.error) throw new Error(r.error);
  return `${(r.matches ?? r.files ?? []).length}${r.truncated ? '+' : ''} ${unit}`;
}

const ms = (r: ContenderResult | undefined): number => (r && !r.error ? median(r.times) : NaN);
const cell = (r: ContenderResult | undefined, withDetail = false): string =>
  r === undefined ? 'n/a' : r.error ? `error: ${r.error.slice(0, 50)}` : `${formatMs(median(r.times))}${withDetail && r.detail ? ` (${r.detail})` : ''}`;
const ratio = (a: ContenderResult | undefined, b: ContenderResult | undefined, label: string): string =>
  Number.isFinite(ms(a)) && Number.isFinite(ms(b)) ? `${formatRatio(ms(a), ms(b))} ${label}` : '';

export async function benchSearch(report: Report, tree: TreeData, options: BenchOptions): Promise<void> {
  const section = report.section(
    `Issue 2 · grep/glob over the generated tree (${tree.files.toLocaleString('en')} files, ${(tree.bytes / 1048576).toFixed(0)} MB; ${tree.visibleFiles.toLocaleString('en')} outside .git and ignored folders)`,
  );
  // The default: what FilesystemBackend uses when given no ripgrepPath (the bundled binary).
  const rg = await findRipgrep();
  if (rg === null) section.notes.push('no ripgrep ships for this platform and none is on PATH: the ripgrep rows and the floor are not measurable here');
  else section.notes.push(`ripgrep: ${rg === (await bundledRipgrep()) ? 'the bundled @vscode/ripgrep binary' : 'rg on PATH (no bundled binary for this platform)'}, ${ripgrepVersion(rg)} (${rg})`);
  const oursRg = rg ? new FilesystemBackend({ rootDir: tree.dir }) : null;
  const oursNode = new FilesystemBackend({ rootDir: tree.dir, ripgrepPath: null });
  const ref = await loadReference();
  const refBackend = ref.ok ? new ref.module.FilesystemBackend({ rootDir: tree.dir, virtualMode: true }) : null;
  if (!ref.ok) section.notes.push(`deepagents reference not loadable: ${ref.error}`);

  let identical = true;
  for (const [kind, pattern] of Object.entries(GREP_PATTERNS)) {
    progress(`grep ${kind} '${pattern}'`);
    const contenders: Record<string, Contender> = {};
    if (oursRg) contenders.ours = { run: async () => described(await oursRg.grep(pattern, '/', undefined, MAX_COUNT), 'matches') };
    contenders.node = { run: async () => described(await oursNode.grep(pattern, '/', undefined, MAX_COUNT), 'matches') };
    if (rg) contenders.floor = { run: () => runRg(rg, rgGrepArgs(pattern, tree.dir)) };
    if (refBackend) contenders.ref = { run: async () => described(await refBackend.grep(pattern, '/', null, MAX_COUNT), 'matches') };
    const r = await timeInterleaved(contenders, { runs: options.runs, budgetMs: ROUND_BUDGET_MS });
    if (oursRg) {
      const a: GrepResult = await oursRg.grep(pattern, '/', undefined, MAX_COUNT);
      const b: GrepResult = await oursNode.grep(pattern, '/', undefined, MAX_COUNT);
      if (JSON.stringify(a) !== JSON.stringify(b)) identical = false;
    }
    const verdicts: string[] = [];
    if (Number.isFinite(ms(r.ours)) && Number.isFinite(ms(r.floor))) verdicts.push(verdict(ms(r.ours) <= 1.5 * ms(r.floor)));
    if (Number.isFinite(ms(r.ours)) && Number.isFinite(ms(r.ref))) verdicts.push(verdict(ms(r.ours) < ms(r.ref)));
    section.rows.push({
      name: `grep ${kind} '${pattern}' → ${r.ours?.detail || 'n/a'}`,
      ours: cell(r.ours),
      floor: cell(r.floor),
      reference: cell(r.ref, true),
      ratio: [ratio(r.ours, r.floor, 'rg'), ratio(r.ours, r.ref, 'ref')].filter(Boolean).join(' · '),
      target: '≤×1.5 rg; < ref',
      result: verdicts.join(', ') || 'n/a',
    });
    section.rows.push({ name: '  same, Node fallback (ripgrepPath: null)', ours: cell(r.node), ratio: [ratio(r.node, r.floor, 'rg'), ratio(r.node, r.ref, 'ref')].filter(Boolean).join(' · ') });
  }
  section.notes.push(`grep: literal, maxCount ${MAX_COUNT} (the tool default); rg floor = the same rg arguments our backend passes (fs-ripgrep.ts), output drained by Node`);
  if (oursRg) section.notes.push(`ripgrep and Node fallback results identical: ${identical ? 'yes' : 'NO (a bug: see fs-search.ts)'}`);
  section.notes.push("deepagents grep: rg --json with rg's default filters (skips dot files), collects every match before cutting to maxCount");

  for (const pattern of ['**/*.ts', '*.md', '/packages/*/package.json']) {
    progress(`glob '${pattern}'`);
    const contenders: Record<string, Contender> = {};
    if (oursRg) contenders.ours = { run: async () => described((await oursRg.glob(pattern, '/')) as GlobResult, 'files') };
    contenders.node = { run: async () => described(await oursNode.glob(pattern, '/'), 'files') };
    if (rg) contenders.floor = { run: () => runRg(rg, rgGlobArgs(pattern, tree.dir)) };
    if (refBackend) contenders.ref = { run: async () => described(await refBackend.glob(pattern, '/'), 'files') };
    const r = await timeInterleaved(contenders, { runs: options.runs, budgetMs: ROUND_BUDGET_MS });
    const row: Row = {
      name: `glob '${pattern}' → ${r.ours?.detail || 'n/a'}`,
      ours: cell(r.ours),
      floor: cell(r.floor),
      reference: cell(r.ref, true),
      ratio: [ratio(r.ours, r.floor, 'rg'), ratio(r.ours, r.ref, 'ref')].filter(Boolean).join(' · '),
      target: '—',
    };
    section.rows.push(row, { name: '  same, Node fallback', ours: cell(r.node), ratio: ratio(r.node, r.ref, 'ref') });
  }
  section.notes.push("glob: ours stats every match (size, modifiedAt); rg floor = rg --files -g PATTERN, same filters; deepagents = fast-glob (no .gitignore; its '*.md' matches the top folder only)");
}
