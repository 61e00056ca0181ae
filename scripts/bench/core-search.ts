// Issue 2, search: grep and glob over the generated tree with Deepdesk's FilesystemBackend
// (ripgrep, and the Node fallback), ripgrep run directly with the same filters (the floor),
// and the deepagents FilesystemBackend (the reference).

import { spawn } from 'node:child_process';
import { FilesystemBackend } from '../../src-main/core/backends/filesystem';
import { findRipgrepOnPath } from '../../src-main/core/backends/fs-ripgrep';
import type { GrepResult } from '../../src-main/core/backends/protocol';
import { GREP_PATTERNS, type TreeData } from './gen-data';
import { errorText, formatMs, formatRatio, median, timeRuns, withTimeout } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';
import { loadReference } from './reference';

const MAX_COUNT = 1000;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const CALL_TIMEOUT_MS = 120_000;

/**
 * The filters fs-ripgrep.ts gives ripgrep for a folder holding `.git` (not exported there,
 * so repeated here; keep in step): only the tree's .gitignore files, dot files seen, .git skipped.
 */
const RG_FILTER_FLAGS = [
  '--no-config', '--no-messages', '--hidden', '--no-require-git', '--no-ignore-global',
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

/** Runs rg, draining its output as a caller would; resolves to the bytes it printed. */
function runRg(rg: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    child.stdout.on('data', (d: Buffer) => (bytes += d.length));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve(bytes) : reject(new Error(`rg exited with ${code}`))));
  });
}

interface Cell {
  ms: number;
  detail: string;
  error?: string;
}

async function measureCell(label: string, runs: number, fn: () => Promise<string>): Promise<Cell> {
  let detail = '';
  try {
    const times = await timeRuns(async () => {
      detail = await withTimeout(fn(), CALL_TIMEOUT_MS, label);
    }, { runs, budgetMs: 15_000 });
    return { ms: median(times), detail };
  } catch (err) {
    return { ms: NaN, detail: '', error: errorText(err) };
  }
}

function grepDetail(r: GrepResult | { error: string }): string {
  if ('error' in r && r.error) throw new Error(r.error);
  const g = r as GrepResult;
  return `${g.matches?.length ?? 0}${g.truncated ? '+' : ''} matches`;
}

const cellText = (c: Cell | undefined): string => (c === undefined ? 'n/a' : c.error ? `error: ${c.error}` : formatMs(c.ms));

export async function benchSearch(report: Report, tree: TreeData, options: BenchOptions): Promise<void> {
  const section = report.section(`Issue 2 · grep/glob over the generated tree (${tree.files} files, ${(tree.bytes / 1048576).toFixed(0)} MB; ${tree.visibleFiles} outside .git and ignored folders)`);
  const rg = await findRipgrepOnPath();
  if (rg === null) section.notes.push('rg is not on PATH: the ripgrep rows and the floor are not measurable here');
  const oursRg = rg ? new FilesystemBackend({ rootDir: tree.dir, ripgrepPath: rg }) : null;
  const oursNode = new FilesystemBackend({ rootDir: tree.dir, ripgrepPath: null });
  const ref = await loadReference();
  const refBackend = ref.ok ? new ref.module.FilesystemBackend({ rootDir: tree.dir, virtualMode: true }) : null;
  if (!ref.ok) section.notes.push(`deepagents reference not loadable: ${ref.error}`);

  let identical = true;
  for (const [kind, pattern] of Object.entries(GREP_PATTERNS)) {
    progress(`grep ${kind} '${pattern}'`);
    const ours = oursRg ? await measureCell('grep (rg)', options.runs, async () => grepDetail(await oursRg.grep(pattern, '/', undefined, MAX_COUNT))) : undefined;
    const node = await measureCell('grep (node)', options.runs, async () => grepDetail(await oursNode.grep(pattern, '/', undefined, MAX_COUNT)));
    const floor = rg ? await measureCell('rg', options.runs, async () => `${await runRg(rg, rgGrepArgs(pattern, tree.dir))} bytes`) : undefined;
    const reference = refBackend
      ? await measureCell('deepagents grep', options.runs, async () => {
          const r = await refBackend.grep(pattern, '/', null, MAX_COUNT);
          if (r.error) throw new Error(r.error);
          return `${r.matches?.length ?? 0}${r.truncated ? '+' : ''} matches`;
        })
      : undefined;
    if (oursRg) {
      const a = await oursRg.grep(pattern, '/', undefined, MAX_COUNT);
      const b = await oursNode.grep(pattern, '/', undefined, MAX_COUNT);
      if (JSON.stringify(a) !== JSON.stringify(b)) identical = false;
    }
    const targets: string[] = [];
    const ratios: string[] = [];
    if (ours && floor && !ours.error && !floor.error) {
      ratios.push(`${formatRatio(ours.ms, floor.ms)} rg`);
      targets.push(verdict(ours.ms <= 1.5 * floor.ms));
    }
    if (ours && reference && !ours.error && !reference.error) {
      ratios.push(`${formatRatio(ours.ms, reference.ms)} ref`);
      targets.push(verdict(ours.ms < reference.ms));
    }
    section.rows.push({
      name: `grep ${kind} '${pattern}' (rg) → ${ours?.detail || 'n/a'}`,
      ours: cellText(ours),
      floor: cellText(floor),
      reference: reference ? `${cellText(reference)}${reference.detail ? ` (${reference.detail})` : ''}` : 'n/a',
      ratio: ratios.join(' · '),
      target: '≤×1.5 rg; < ref',
      result: targets.join(', ') || 'n/a',
    });
    section.rows.push({
      name: `  same, Node fallback (ripgrepPath: null)`,
      ours: cellText(node),
      ratio: [reference && !reference.error && !node.error ? `${formatRatio(node.ms, reference.ms)} ref` : '', floor && !floor.error && !node.error ? `${formatRatio(node.ms, floor.ms)} rg` : '']
        .filter(Boolean)
        .join(' · '),
    });
  }
  section.notes.push(`grep: literal, maxCount ${MAX_COUNT} (the tool default); rg floor = the same rg arguments our backend passes (fs-ripgrep.ts), output drained by Node`);
  if (oursRg) section.notes.push(`ripgrep and Node fallback results identical: ${identical ? 'yes' : 'NO (bug: see fs-search.ts)'}`);
  section.notes.push('deepagents grep: rg --json with rg\'s default filters, collects every match before cutting to maxCount');

  const globs = ['**/*.ts', '*.md', '/packages/*/package.json'];
  for (const pattern of globs) {
    progress(`glob '${pattern}'`);
    const count = (r: { error?: string; matches?: unknown[] }): string => {
      if (r.error) throw new Error(r.error);
      return `${r.matches?.length ?? 0} files`;
    };
    const ours = oursRg ? await measureCell('glob (rg)', options.runs, async () => count(await oursRg.glob(pattern, '/'))) : undefined;
    const node = await measureCell('glob (node)', options.runs, async () => count(await oursNode.glob(pattern, '/')));
    const floor = rg ? await measureCell('rg --files', options.runs, async () => `${await runRg(rg, rgGlobArgs(pattern, tree.dir))} bytes`) : undefined;
    const reference = refBackend
      ? await measureCell('deepagents glob', options.runs, async () => {
          const r = await refBackend.glob(pattern, '/');
          if (r.error) throw new Error(r.error);
          return `${r.files?.length ?? 0} files`;
        })
      : undefined;
    const ratios = [
      ours && floor && !ours.error && !floor.error ? `${formatRatio(ours.ms, floor.ms)} rg` : '',
      ours && reference && !ours.error && !reference.error ? `${formatRatio(ours.ms, reference.ms)} ref` : '',
    ].filter(Boolean);
    section.rows.push({
      name: `glob '${pattern}' (rg) → ${ours?.detail || 'n/a'}`,
      ours: cellText(ours),
      floor: cellText(floor),
      reference: reference ? `${cellText(reference)}${reference.detail ? ` (${reference.detail})` : ''}` : 'n/a',
      ratio: ratios.join(' · '),
      target: '—',
    });
    section.rows.push({
      name: `  same, Node fallback → ${node.detail || 'n/a'}`,
      ours: cellText(node),
      ratio: reference && !reference.error && !node.error ? `${formatRatio(node.ms, reference.ms)} ref` : '',
    });
  }
  section.notes.push("glob: ours stats every match (size, modifiedAt); rg floor = rg --files -g PATTERN with the same filters; deepagents uses fast-glob (no .gitignore; '*.md' there matches the top folder only)");
}
