// `deepdesk usage [--since DATE] [--by thread|day|model] [--json]` (SPEC §17): the usage
// ledger summed by thread, day or model, as a table with a total, the reviewer's calls in a
// column when there are any (and sandbox time, SPEC §18,
// as a second one) and a line for each turn whose cost drifted (SPEC §26), or as one JSON
// document shaped as the contract's UsageReport (what the window's Usage view reads).

import { databasePath, resolveDataDir } from '../app/base/data-dir';
import { costDriftText, sandboxTimeText, usageGroupingSchema, usageSinceSchema, type UsageGrouping, type UsageReport, type UsageSums } from '../app/contract/usage';
import { ThreadStore } from '../app/threads/thread-store';
import { openDatabase } from '../core/backends/store/store';
import { isSandboxProviderName, PROVIDER_LABELS } from '../core/sandbox-providers/provider';
import { ledgerReader, sinceInstant } from '../core/telemetry/usage-ledger';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS } from './command-table';
import { table } from './table';
import { readSavedSettings } from '../app/settings/settings-service';
import { costText, ledgerPrices, sandboxCostText, usageReport } from '../app/usage/usage-report';
import { parseCommand, UsageError } from './usage';

export interface UsageIo {
  stdout: NodeJS.WritableStream;
}

const HEADINGS: Record<UsageGrouping, string> = { thread: 'THREAD', day: 'DAY', model: 'MODEL' };

/** A table's thread label: at most this many characters of the title (the short id follows it). */
const MAX_LABEL = 60;

export async function usageCommand(argv: string[], io: UsageIo = { stdout: process.stdout }): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.usage);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const by = usageGroupingSchema.safeParse(values.by ?? 'thread');
  if (!by.success) throw new UsageError(`--by must be thread, day or model (got '${values.by}')`);
  const since = values.since;
  if (since !== undefined) checkSince(since);

  const dataDir = resolveDataDir(values['data-dir']);
  const db = openDatabase(databasePath(dataDir));
  try {
    const saved = readSavedSettings(dataDir);
    const ledger = ledgerReader(db, ...ledgerPrices(() => saved));
    const report = usageReport(ledger, new ThreadStore(db), { by: by.data, ...(since !== undefined ? { since } : {}) });
    if (values.json) {
      io.stdout.write(terminalSafeJson(report) + '\n');
      return 0;
    }
    io.stdout.write(usageText(report));
    return 0;
  } finally {
    db.close();
  }
}

/** `YYYY-MM-DD` (a day that exists, from its start, UTC) or a full ISO time; anything else is bad usage. */
function checkSince(since: string): void {
  const bad = new UsageError(`--since must be a date as YYYY-MM-DD (got '${since}')`);
  if (!usageSinceSchema.safeParse(since).success) throw bad;
  // `2024-02-30` would be taken as a day in March: only a day that exists is.
  const [y, m, d] = since.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) throw bad;
  try {
    sinceInstant(since);
  } catch {
    throw bad;
  }
}

/** The report as the tables a person reads (model calls, then sandbox time), each with its unknown-price line. */
export function usageText(report: UsageReport): string {
  return modelCallsText(report) + driftsText(report) + sandboxText(report);
}

/** A line for each turn whose cost drifted (SPEC §26), under the calls. */
function driftsText(report: UsageReport): string {
  return report.drifts.map((d) => `Turn ${d.turn} of thread ${terminalSafe(shortId(d.thread), { singleLine: true })}: ${costDriftText(d.ratio)}\n`).join('');
}

function modelCallsText(report: UsageReport): string {
  if (report.rows.length === 0) {
    return report.since === undefined ? 'No model calls recorded yet.\n' : `No model calls recorded since ${terminalSafe(report.since, { singleLine: true })}.\n`;
  }
  // The reviewer's calls (SPEC §23) are in the thread's: a column of their own says how many, when there are any.
  const reviewer = (report.total.byPurpose?.reviewer?.calls ?? 0) > 0;
  const cells = (sums: UsageSums): string[] => [...sumCells(sums), ...(reviewer ? [reviewerCell(sums)] : [])];
  const rows = [
    [HEADINGS[report.by], 'CALLS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'COST', ...(reviewer ? ['REVIEWER'] : [])],
    ...report.rows.map((row) => [rowLabel(report.by, row), ...cells(row)]),
    ['TOTAL', ...cells(report.total)],
  ];
  let text = table(rows);
  const unpriced = report.total.unpricedCalls;
  if (unpriced > 0) text += `${unpriced} ${unpriced === 1 ? 'call' : 'calls'} of models with no known price: tokens counted, cost not (set a price in Settings › Prices)\n`;
  return text;
}

/** Sandbox time under the model calls, when there is any. */
function sandboxText(report: UsageReport): string {
  if (report.sandboxes.length === 0) return '';
  const rows = [
    [HEADINGS[report.by], 'PROVIDER', 'TIME', 'COST'],
    ...report.sandboxes.map((row) => [rowLabel(report.by, row), providerLabel(row.provider), sandboxTimeText(row.seconds), sandboxCostText(row)]),
    ['TOTAL', '', sandboxTimeText(report.sandboxTotal.seconds), sandboxCostText(report.sandboxTotal)],
  ];
  let text = `\nSandbox time\n${table(rows)}`;
  const unpriced = report.sandboxTotal.unpricedSeconds;
  if (unpriced !== undefined) {
    text += `${sandboxTimeText(unpriced)} of sandbox time with no price: time counted, cost not (set a price per hour in Settings › Sandboxes)\n`;
  }
  return text;
}

function providerLabel(provider: string): string {
  return isSandboxProviderName(provider) ? PROVIDER_LABELS[provider] : provider;
}

/** A row's first cell, safe for a terminal: a thread's title and short id, else the key. */
function rowLabel(by: UsageGrouping, row: { key: string; label: string }): string {
  if (by !== 'thread' || row.label === row.key) return terminalSafe(row.key, { singleLine: true });
  // Sandbox time of no thread.
  if (row.key === '') return terminalSafe(row.label, { singleLine: true });
  const title = row.label.replace(/\s+/g, ' ').trim();
  const shown = title.length > MAX_LABEL ? `${title.slice(0, MAX_LABEL - 1).trimEnd()}…` : title;
  // Escaped before the table measures it, so the columns line up.
  return `${terminalSafe(shown, { singleLine: true })} (${terminalSafe(shortId(row.key), { singleLine: true })})`;
}

function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}

function sumCells(sums: UsageSums): string[] {
  const calls = sums.failedCalls > 0 ? `${count(sums.calls)} (${count(sums.failedCalls)} failed)` : count(sums.calls);
  return [calls, count(sums.inputTokens), count(sums.outputTokens), count(sums.cacheReadTokens), count(sums.cacheWriteTokens), costText(sums)];
}

/** Of a group's calls, the reviewer's and what they cost. */
function reviewerCell(sums: UsageSums): string {
  const own = sums.byPurpose?.reviewer;
  return own === undefined ? '0' : `${count(own.calls)} (${costText({ costUsd: own.costUsd, unpricedCalls: 0 })})`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
