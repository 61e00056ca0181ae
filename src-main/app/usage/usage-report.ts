// The ledger summed for a person (SPEC §17): by thread (labelled with the thread's title),
// day or model, since a date, with totals — what the window's Usage view and `deepdesk
// usage` both show.

import type { UsageLedger } from '../../core/telemetry/usage-ledger';
import type { UsageGrouping, UsageReport } from '../contract/usage';
import type { ThreadStore } from '../threads/thread-store';

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
