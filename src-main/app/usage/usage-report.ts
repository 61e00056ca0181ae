// The ledger summed for a person (SPEC §17): by thread (labelled with the thread's title),
// day or model, since a date, with totals — what the window's Usage view and `deepdesk
// usage` both show — priced at the prices known now for the calls whose price was unknown
// when they were made (usage-ledger.ts), and a cost as the command line writes it.

import { formatUsd } from '../../core/agent/budget';
import { resolvePrice, type PriceOverride } from '../../core/models/model-info';
import type { PriceNow, UsageLedger } from '../../core/telemetry/usage-ledger';
import type { UsageGrouping, UsageReport, UsageSums } from '../contract/usage';
import type { ThreadStore } from '../threads/thread-store';

/** A model's price now: the person's in Settings › Prices (read at each call), else the table's. */
export function pricesNow(prices: () => Readonly<Record<string, PriceOverride>> | undefined): PriceNow {
  return (modelId) => resolvePrice(modelId, prices());
}

/** A sum's cost for a terminal or a document: `$0.0123`, `$0.0123 + unknown` (some calls have no price), `—` (none has). */
export function costText(sums: Pick<UsageSums, 'unpricedCalls' | 'costUsd'>): string {
  if (sums.costUsd === null) return '—';
  return sums.unpricedCalls > 0 ? `${formatUsd(sums.costUsd)} + unknown` : formatUsd(sums.costUsd);
}

export function usageReport(ledger: UsageLedger, threads: Pick<ThreadStore, 'get'>, query: { by: UsageGrouping; since?: string }): UsageReport {
  const { rows, total } = ledger.report({ by: query.by, ...(query.since !== undefined ? { since: query.since } : {}) });
  return {
    by: query.by,
    ...(query.since !== undefined ? { since: query.since } : {}),
    rows: rows.map((row) => {
      if (query.by !== 'thread') return { ...row, label: row.key };
      const thread = threads.get(row.key);
      return { ...row, label: thread?.title || row.key, ...(thread !== undefined ? { folder: thread.folder } : {}) };
    }),
    total,
  };
}
