// `deepdesk usage` through the built bin, on a real data folder whose ledger and threads the
// test writes with the app's own classes: the table and its groupings, --since, the line for
// calls of models with no known price, titles that try to drive the terminal, sandbox time
// beside the calls, and --json as the contract's UsageReport.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usageReportSchema } from '../app/contract/usage';
import { databasePath } from '../app/base/data-dir';
import { ThreadStore } from '../app/threads/thread-store';
import { newThreadState } from '../core/agent/types';
import { openDatabase } from '../core/backends/store/store';
import { UsageLedger, type ModelCallRecord } from '../core/telemetry/usage-ledger';
import { useCliTestEnv } from './cli-harness.test-support';
import { recordRow } from '../core/telemetry/ledger-rows.test-support';

const t = useCliTestEnv('deepdesk-usage-cli');

const LOGIN = 'aaaaaaaa-1111-4111-8111-111111111111';
const EVIL = 'bbbbbbbb-2222-4222-8222-222222222222';
const LOCAL = 'cccccccc-3333-4333-8333-333333333333';
const GONE = 'dddddddd-4444-4444-8444-444444444444';
const EVIL_TITLE = 'Evil \x1b[2J\x1b]0;pwned\x07 title \u202emoc.evil';

let seq = 0;
function call(threadId: string, at: string, model: string, costUsd: number | null, tokens = 1000, failed = false): ModelCallRecord {
  const [provider, name] = model.split(':') as [string, string];
  return {
    id: `call-${++seq}`,
    at,
    threadId,
    turn: 1,
    subagent: null,
    purpose: 'agent',
    provider,
    model: name,
    inputTokens: tokens,
    outputTokens: tokens / 10,
    cacheReadTokens: tokens / 2,
    cacheWriteTokens: tokens / 4,
    costUsd,
    durationMs: 1200,
    failed,
    error: failed ? 'refused' : null,
  };
}

function seed(): void {
  const db = openDatabase(databasePath(t.dataDir));
  try {
    const threads = new ThreadStore(db);
    threads.save({ ...newThreadState(LOGIN), messages: [{ role: 'user', content: 'Fix the login bug' }] }, { folder: t.folder });
    threads.save({ ...newThreadState(EVIL), messages: [{ role: 'user', content: 'x' }] }, { folder: t.folder, title: EVIL_TITLE });
    threads.save({ ...newThreadState(LOCAL), messages: [{ role: 'user', content: 'Ask the local model' }] }, { folder: t.folder });
    const ledger = new UsageLedger(db);
    recordRow(ledger, call(LOGIN, '2025-01-10T09:00:00.000Z', 'anthropic:claude-sonnet-4-5', 0.01, 2000));
    // A goal's grader's call (SPEC §21): the ledger says what each call was for.
    recordRow(ledger, { ...call(LOGIN, '2025-01-11T09:00:00.000Z', 'anthropic:claude-sonnet-4-5', 0.0023), purpose: 'grader' });
    recordRow(ledger, call(EVIL, '2025-01-11T10:00:00.000Z', 'openai:gpt-5', 1.5));
    recordRow(ledger, call(EVIL, '2025-01-12T10:00:00.000Z', 'openai-compatible:qwen3', null));
    recordRow(ledger, call(LOCAL, '2025-01-12T11:00:00.000Z', 'openai-compatible:qwen3', null, 3000));
    recordRow(ledger, call(GONE, '2025-01-09T08:00:00.000Z', 'openai:gpt-5', 0.5));
    ledger.close();
  } finally {
    db.close();
  }
}

/** The table's rows as cells (columns are two or more spaces apart; a cell has single spaces at most). */
const cells = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l !== '' && !l.includes('no known price'))
    .map((l) => l.split(/ {2,}/));

describe('deepdesk usage', () => {
  it('says so when nothing is recorded, and --json is an empty report', async () => {
    const text = await t.deepdesk(['usage']);
    expect(text).toMatchObject({ code: 0, stdout: 'No model calls recorded yet.\n', stderr: '' });
    const json = await t.deepdesk(['usage', '--json', '--by', 'model']);
    expect(json.code).toBe(0);
    expect(usageReportSchema.parse(JSON.parse(json.stdout))).toMatchObject({ by: 'model', rows: [], total: { calls: 0, costUsd: 0 }, sandboxes: [], sandboxTotal: { seconds: 0, costUsd: null } });
  });

  it('prints a table by thread (the default): titles with short ids, the id of a thread that is gone, a total, and the unknown-price line', async () => {
    seed();
    const r = await t.deepdesk(['usage']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = cells(r.stdout);
    expect(rows[0]).toEqual(['THREAD', 'CALLS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'COST']);
    // Most expensive first.
    expect(rows.slice(1).map((row) => row.slice(1))).toEqual([
      ['2', '2,000', '200', '1,000', '500', '$1.50 + unknown'],
      ['1', '1,000', '100', '500', '250', '$0.5000'],
      ['2', '3,000', '300', '1,500', '750', '$0.0123'],
      ['1', '3,000', '300', '1,500', '750', '—'],
      ['6', '9,000', '900', '4,500', '2,250', '$2.01 + unknown'],
    ]);
    const labels = rows.slice(1).map((row) => row[0]);
    expect(labels[1]).toBe(GONE);
    expect(labels[2]).toBe('Fix the login bug (aaaaaaaa)');
    expect(labels[3]).toBe('Ask the local model (cccccccc)');
    expect(labels[4]).toBe('TOTAL');
    // The title is shown, its controls as escapes: nothing reaches the terminal that it would obey.
    expect(labels[0]).toBe('Evil \\x1b[2J\\x1b]0;pwned\\x07 title \\u202emoc.evil (bbbbbbbb)');
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    // Columns line up (the escapes were measured, not the raw title).
    const lines = r.stdout.split('\n').filter((l) => l.includes('$') || l.startsWith('THREAD'));
    const costAt = lines[0]!.indexOf('COST');
    for (const line of lines.slice(1)) expect(line.slice(costAt)).toMatch(/^(\$|—)/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('2 calls of models with no known price: tokens counted, cost not (set a price in Settings › Prices)');
  });

  it('groups by day (oldest first) and by model, and --since keeps the calls from that day on', async () => {
    seed();
    const days = await t.deepdesk(['usage', '--by', 'day']);
    expect(days.code).toBe(0);
    expect(cells(days.stdout).map((row) => [row[0], row[1], row[6]])).toEqual([
      ['DAY', 'CALLS', 'COST'],
      ['2025-01-09', '1', '$0.5000'],
      ['2025-01-10', '1', '$0.0100'],
      ['2025-01-11', '2', '$1.50'],
      ['2025-01-12', '2', '—'],
      ['TOTAL', '6', '$2.01 + unknown'],
    ]);

    const models = await t.deepdesk(['usage', '--by', 'model', '--since', '2025-01-11']);
    expect(models.code).toBe(0);
    expect(cells(models.stdout).map((row) => [row[0], row[1], row[2], row[6]])).toEqual([
      ['MODEL', 'CALLS', 'INPUT', 'COST'],
      ['openai:gpt-5', '1', '1,000', '$1.50'],
      ['anthropic:claude-sonnet-4-5', '1', '1,000', '$0.0023'],
      ['openai-compatible:qwen3', '2', '4,000', '—'],
      ['TOTAL', '4', '6,000', '$1.50 + unknown'],
    ]);
    expect(models.stdout).toContain('\n2 calls of models with no known price');

    const priced = await t.deepdesk(['usage', '--by', 'model', '--since', '2025-01-09T00:00:00Z']);
    expect(cells(priced.stdout).at(-1)).toEqual(['TOTAL', '6', '9,000', '900', '4,500', '2,250', '$2.01 + unknown']);

    const later = await t.deepdesk(['usage', '--since', '2025-02-01']);
    expect(later).toMatchObject({ code: 0, stdout: 'No model calls recorded since 2025-02-01.\n' });
  });

  it('--json prints the contract UsageReport: keys, labels (title, or id when gone), sums and times', async () => {
    seed();
    const r = await t.deepdesk(['usage', '--json', '--since', '2025-01-10']);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    const report = usageReportSchema.parse(JSON.parse(r.stdout));
    expect(report.by).toBe('thread');
    expect(report.since).toBe('2025-01-10');
    expect(report.rows.map((row) => [row.key, row.label, row.calls, row.unpricedCalls])).toEqual([
      [EVIL, EVIL_TITLE, 2, 1],
      [LOGIN, 'Fix the login bug', 2, 0],
      [LOCAL, 'Ask the local model', 1, 1],
    ]);
    expect(report.rows[1]).toMatchObject({ inputTokens: 3000, outputTokens: 300, cacheReadTokens: 1500, cacheWriteTokens: 750, durationMs: 2400, firstAt: '2025-01-10T09:00:00.000Z', lastAt: '2025-01-11T09:00:00.000Z' });
    expect(report.rows[1]!.costUsd).toBeCloseTo(0.0123, 10);
    // Unknown is not free: the known part with the count of calls it leaves out, null when nothing is known.
    expect(report.rows[0]).toMatchObject({ costUsd: 1.5, unpricedCalls: 1 });
    expect(report.rows[2]).toMatchObject({ costUsd: null, unpricedCalls: 1 });
    expect(report.total).toMatchObject({ calls: 5, unpricedCalls: 2, failedCalls: 0, inputTokens: 8000 });
    // What each call was for (issue 79): the grader's apart from the agent's own, by row and in all.
    expect(report.rows[1]!.byPurpose).toEqual({ agent: { calls: 1, costUsd: 0.01 }, grader: { calls: 1, costUsd: 0.0023 } });
    expect(report.total.byPurpose).toMatchObject({ agent: { calls: 4 }, grader: { calls: 1, costUsd: 0.0023 } });
    expect(report.total.byPurpose!.agent!.costUsd).toBeCloseTo(1.51, 10);
    // Controls in the title are JSON escapes, never raw bytes on the terminal.
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(r.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
    expect(r.stdout).toContain('\\u001b[2J');

    const gone = usageReportSchema.parse(JSON.parse((await t.deepdesk(['usage', '--json'])).stdout));
    expect(gone.rows.find((row) => row.key === GONE)?.label).toBe(GONE);
    const byDay = usageReportSchema.parse(JSON.parse((await t.deepdesk(['usage', '--json', '--by', 'day'])).stdout));
    expect(byDay.rows.map((row) => [row.key, row.label])).toEqual(['2025-01-09', '2025-01-10', '2025-01-11', '2025-01-12'].map((d) => [d, d]));
  });

  it('prices the calls made with no known price at the price set since in Settings › Prices; a recorded cost stays as it was', async () => {
    seed();
    // qwen3 gets a price; gpt-5 another than the one its calls were recorded at.
    writeFileSync(
      join(t.dataDir, 'settings.json'),
      JSON.stringify({ prices: { 'openai-compatible:qwen3': { input: 2, output: 4, cacheRead: 1, cacheWrite: 2 }, 'openai:gpt-5': { input: 1000, output: 1000 } } }),
    );
    // 1,000 input tokens (500 cache reads, 250 cache writes) and 100 output: 250×2 + 500×1 + 250×2 + 100×4 per million.
    const qwen = (tokens: number) => ((tokens / 4) * 2 + (tokens / 2) * 1 + (tokens / 4) * 2 + (tokens / 10) * 4) / 1e6;
    const r = await t.deepdesk(['usage', '--by', 'model']);
    expect(r.code).toBe(0);
    expect(cells(r.stdout).map((row) => [row[0], row[1], row[6]])).toEqual([
      ['MODEL', 'CALLS', 'COST'],
      ['openai:gpt-5', '2', '$2.00'],
      ['anthropic:claude-sonnet-4-5', '2', '$0.0123'],
      ['openai-compatible:qwen3', '2', `$${(qwen(1000) + qwen(3000)).toFixed(4)}`],
      ['TOTAL', '6', '$2.02'],
    ]);
    expect(r.stdout).not.toContain('no known price');
    const json = usageReportSchema.parse(JSON.parse((await t.deepdesk(['usage', '--json', '--by', 'model'])).stdout));
    expect(json.total.unpricedCalls).toBe(0);
    expect(json.rows.find((row) => row.key === 'openai-compatible:qwen3')?.costUsd).toBeCloseTo(qwen(1000) + qwen(3000), 12);
  });

  it('says how many of a group\'s calls failed', async () => {
    const db = openDatabase(databasePath(t.dataDir));
    try {
      const ledger = new UsageLedger(db);
      recordRow(ledger, call(LOGIN, '2025-01-10T09:00:00.000Z', 'anthropic:claude-sonnet-4-5', 0.01));
      recordRow(ledger, call(LOGIN, '2025-01-10T09:01:00.000Z', 'anthropic:claude-sonnet-4-5', 0, 0, true));
      ledger.close();
    } finally {
      db.close();
    }
    const r = await t.deepdesk(['usage', '--by', 'day']);
    expect(r.code).toBe(0);
    expect(cells(r.stdout).map((row) => row.slice(0, 2))).toEqual([
      ['DAY', 'CALLS'],
      ['2025-01-10', '2 (1 failed)'],
      ['TOTAL', '2 (1 failed)'],
    ]);
  });

  it('breaks the reviewer\'s calls out of each row in a column of their own (SPEC §23), as --json does', async () => {
    const db = openDatabase(databasePath(t.dataDir));
    try {
      const threads = new ThreadStore(db);
      threads.save({ ...newThreadState(LOGIN), messages: [{ role: 'user', content: 'Fix the login bug' }] }, { folder: t.folder });
      const ledger = new UsageLedger(db);
      recordRow(ledger, call(LOGIN, '2025-01-10T09:00:00.000Z', 'anthropic:claude-sonnet-4-5', 0.01));
      recordRow(ledger, { ...call(LOGIN, '2025-01-10T09:01:00.000Z', 'anthropic:claude-haiku-4-5', 0.002), purpose: 'reviewer' });
      recordRow(ledger, { ...call(LOGIN, '2025-01-10T09:02:00.000Z', 'anthropic:claude-haiku-4-5', 0.001), purpose: 'reviewer' });
      recordRow(ledger, call(LOCAL, '2025-01-10T10:00:00.000Z', 'openai:gpt-5', 0.5));
      ledger.close();
    } finally {
      db.close();
    }
    const r = await t.deepdesk(['usage']);
    expect(r.code).toBe(0);
    expect(cells(r.stdout).map((row) => [row[0], row[1], row[6], row[7]])).toEqual([
      ['THREAD', 'CALLS', 'COST', 'REVIEWER'],
      [LOCAL, '1', '$0.5000', '0'],
      ['Fix the login bug (aaaaaaaa)', '3', '$0.0130', '2 ($0.0030)'],
      ['TOTAL', '4', '$0.5130', '2 ($0.0030)'],
    ]);
    const byModel = await t.deepdesk(['usage', '--by', 'model']);
    expect(cells(byModel.stdout).find((row) => row[0] === 'anthropic:claude-haiku-4-5')?.[7]).toBe('2 ($0.0030)');
  });

  it('prints sandbox time under the model calls by thread, day and provider: time, cost or no price, a price per hour set in Settings › Sandboxes; --json has it as sandboxes', async () => {
    seed();
    const db = openDatabase(databasePath(t.dataDir));
    try {
      const ledger = new UsageLedger(db);
      const slice = { folder: t.folder, sandboxId: 'sb-1', costUsd: null };
      // An hour and two minutes in Daytona for the login thread, in slices, the first priced then.
      ledger.recordSandboxTime({ ...slice, at: '2025-01-10T09:00:00.000Z', threadId: LOGIN, provider: 'daytona', seconds: 1800, costUsd: 0.1 });
      ledger.recordSandboxTime({ ...slice, at: '2025-01-10T09:30:00.000Z', threadId: LOGIN, provider: 'daytona', seconds: 1920 });
      // 3m 20s in E2B for the evil thread, never priced.
      ledger.recordSandboxTime({ ...slice, at: '2025-01-11T10:00:00.000Z', threadId: EVIL, provider: 'e2b', sandboxId: 'sb-2', seconds: 200 });
    } finally {
      db.close();
    }

    const sandboxSection = (stdout: string) => {
      const lines = stdout.split('\n');
      const start = lines.indexOf('Sandbox time');
      expect(start, stdout).toBeGreaterThan(0);
      // A blank line before it, under the calls' table.
      expect(lines[start - 1]).toBe('');
      return lines.slice(start + 1).filter((l) => l !== '');
    };
    const byThread = await t.deepdesk(['usage']);
    expect(byThread).toMatchObject({ code: 0, stderr: '' });
    // The model calls are as they were.
    expect(cells(byThread.stdout)[0]).toEqual(['THREAD', 'CALLS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'COST']);
    expect(sandboxSection(byThread.stdout).map((l) => l.split(/ {2,}/))).toEqual([
      ['THREAD', 'PROVIDER', 'TIME', 'COST'],
      ['Fix the login bug (aaaaaaaa)', 'Daytona', '1h 02m', '$0.1000 + no price'],
      ['Evil \\x1b[2J\\x1b]0;pwned\\x07 title \\u202emoc.evil (bbbbbbbb)', 'E2B', '3m 20s', 'no price'],
      ['TOTAL', '1h 05m', '$0.1000 + no price'],
      ['35m 20s of sandbox time with no price: time counted, cost not (set a price per hour in Settings › Sandboxes)'],
    ]);
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(byThread.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);

    const byModel = await t.deepdesk(['usage', '--by', 'model']);
    expect(sandboxSection(byModel.stdout).slice(0, 3).map((l) => l.split(/ {2,}/))).toEqual([
      ['MODEL', 'PROVIDER', 'TIME', 'COST'],
      ['sandbox:daytona', 'Daytona', '1h 02m', '$0.1000 + no price'],
      ['sandbox:e2b', 'E2B', '3m 20s', 'no price'],
    ]);
    const byDay = await t.deepdesk(['usage', '--by', 'day', '--since', '2025-01-11']);
    expect(sandboxSection(byDay.stdout).slice(0, 3).map((l) => l.split(/ {2,}/))).toEqual([
      ['DAY', 'PROVIDER', 'TIME', 'COST'],
      ['2025-01-11', 'E2B', '3m 20s', 'no price'],
      ['TOTAL', '3m 20s', 'no price'],
    ]);

    // A price per hour set since prices the time recorded without one; the recorded cost stays.
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ sandboxes: { pricesPerHourUsd: { daytona: 0.09, e2b: 1.8 } } }));
    const priced = await t.deepdesk(['usage', '--by', 'model']);
    expect(sandboxSection(priced.stdout).map((l) => l.split(/ {2,}/))).toEqual([
      ['MODEL', 'PROVIDER', 'TIME', 'COST'],
      ['sandbox:daytona', 'Daytona', '1h 02m', '$0.1480'],
      ['sandbox:e2b', 'E2B', '3m 20s', '$0.1000'],
      ['TOTAL', '1h 05m', '$0.2480'],
    ]);

    const json = usageReportSchema.parse(JSON.parse((await t.deepdesk(['usage', '--json'])).stdout));
    expect(json.sandboxes.map((row) => [row.key, row.label, row.provider, row.seconds, row.folder])).toEqual([
      [LOGIN, 'Fix the login bug', 'daytona', 3720, t.folder],
      [EVIL, EVIL_TITLE, 'e2b', 200, t.folder],
    ]);
    expect(json.sandboxes[0]!.costUsd).toBeCloseTo(0.148, 12);
    expect(json.sandboxTotal).toMatchObject({ seconds: 3920 });
    expect(json.sandboxTotal.unpricedSeconds).toBeUndefined();
  });

  it('with sandbox time and no model calls, says there are no calls and prints the time', async () => {
    const db = openDatabase(databasePath(t.dataDir));
    try {
      new UsageLedger(db).recordSandboxTime({ at: '2025-01-10T09:00:00.000Z', threadId: null, folder: t.folder, provider: 'deno', sandboxId: 'sb-9', seconds: 45, costUsd: null });
    } finally {
      db.close();
    }
    const r = await t.deepdesk(['usage']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').map((l) => l.split(/ {2,}/))).toEqual([
      ['No model calls recorded yet.'],
      [''],
      ['Sandbox time'],
      ['THREAD', 'PROVIDER', 'TIME', 'COST'],
      ['No thread', 'Deno', '45s', 'no price'],
      ['TOTAL', '45s', 'no price'],
      ['45s of sandbox time with no price: time counted, cost not (set a price per hour in Settings › Sandboxes)'],
      [''],
    ]);
  });

  it('exits 2 on a bad date, grouping or argument', async () => {
    for (const args of [
      ['--since', 'yesterday'],
      ['--since', '2025-02-30'],
      ['--since', '2025-13-01'],
      ['--by', 'week'],
      ['extra'],
      ['--frobnicate'],
    ]) {
      const r = await t.deepdesk(['usage', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^deepdesk usage: /);
    }
    expect((await t.deepdesk(['usage', '--since', 'yesterday'])).stderr).toBe("deepdesk usage: --since must be a date as YYYY-MM-DD (got 'yesterday')\n");
  });
});
