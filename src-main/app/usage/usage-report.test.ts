// The report the window and `deepdesk usage` show: a thread's row is labelled with its
// title and its folder (a thread of another folder is not opened in this window).

import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/backends/store/store';
import { newThreadState } from '../../core/agent/types';
import { UsageLedger } from '../../core/telemetry/usage-ledger';
import { usageReportSchema } from '../contract/usage';
import { ThreadStore } from '../threads/thread-store';
import { costText, ledgerPrices, usageReport } from './usage-report';
import { recordRow } from '../../core/telemetry/ledger-rows.test-support';

describe('usageReport', () => {
  it('labels threads with their title and folder, a gone thread with its id, days and models with their key', () => {
    const db = openDatabase(':memory:');
    const threads = new ThreadStore(db);
    threads.save(newThreadState('a'), { folder: '/work/alpha', title: 'Fix the build' });
    // Another agent's thread says whose it is (SPEC §22).
    threads.save({ ...newThreadState('c'), externalAgent: { name: 'claude-code', label: 'Claude Code' } }, { folder: '/work/alpha', title: 'Port the parser' });
    const ledger = new UsageLedger(db);
    const base = { at: '2026-11-20T10:00:00.000Z', turn: 1, subagent: null, purpose: 'agent' as const, provider: 'anthropic', model: 'claude-haiku-4-5', inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01, durationMs: 5, failed: false, error: null };
    recordRow(ledger, { ...base, id: '1', threadId: 'a' });
    recordRow(ledger, { ...base, id: '2', threadId: 'gone', costUsd: 0.02 });
    recordRow(ledger, { ...base, id: '3', threadId: 'c', costUsd: 0.005 });
    const byThread = usageReportSchema.parse(usageReport(ledger, threads, { by: 'thread' }));
    expect(byThread.rows.map((r) => [r.key, r.label, r.folder, r.agent])).toEqual([
      ['gone', 'gone', undefined, undefined],
      ['a', 'Fix the build', '/work/alpha', undefined],
      ['c', 'Port the parser', '/work/alpha', 'Claude Code'],
    ]);
    expect(usageReport(ledger, threads, { by: 'model', since: '2026-11-20' })).toMatchObject({ by: 'model', since: '2026-11-20', rows: [{ key: 'anthropic:claude-haiku-4-5', label: 'anthropic:claude-haiku-4-5' }] });
    ledger.close();
    db.close();
  });

  it('prices by the person’s price over the table’s, read at each call', () => {
    const settings: { prices?: Record<string, { input: number; output: number }> } = {};
    const [price] = ledgerPrices(() => settings);
    expect(price('openai-compatible:local')).toBeNull();
    expect(price('anthropic:claude-haiku-4-5')?.input).toBeGreaterThan(0);
    settings.prices = { 'openai-compatible:local': { input: 2, output: 4 }, 'anthropic:claude-haiku-4-5': { input: 0, output: 0 } };
    expect(price('openai-compatible:local')).toEqual({ input: 2, output: 4, cacheRead: 2, cacheWrite: 2 });
    expect(price('anthropic:claude-haiku-4-5')?.input).toBe(0);
  });

  it('writes a cost as known, partly unknown or unknown — never $0 for what has no price', () => {
    expect(costText({ costUsd: 0.0123, unpricedCalls: 0 })).toBe('$0.0123');
    expect(costText({ costUsd: 0.0123, unpricedCalls: 2 })).toBe('$0.0123 + unknown');
    expect(costText({ costUsd: 0, unpricedCalls: 1 })).toBe('$0.0000 + unknown');
    expect(costText({ costUsd: null, unpricedCalls: 3 })).toBe('—');
  });
});
