// The ledger summed for a person (SPEC §17): by thread (labelled with the thread's title),
// day or model, since a date, with totals — what the window's Usage view and `deepdesk
// usage` both show — priced at the prices known now for the calls whose price was unknown
// when they were made (usage-ledger.ts), and a cost as the command line writes it. Sandbox
// time (SPEC §18) comes with it, grouped the same way, and the turns whose cost drifted (§26).

import { formatUsd } from '../../core/spend/spend-tree';
import { resolvePrice, type PriceOverride } from '../../core/models/model-info';
import { isSandboxProviderName } from '../../core/sandbox-providers/provider';
import { costDrifts, type CostDrift } from '../../core/telemetry/cost-drift';
import { sinceInstant, type LedgerReader, type PriceNow, type SandboxPriceNow } from '../../core/telemetry/usage-ledger';
import type { SandboxSettings } from '../contract/sandboxes';
import type { SandboxSums, UsageGrouping, UsageReport, UsageSums } from '../contract/usage';
import type { ThreadStore } from '../threads/thread-store';

/**
 * The prices a ledger reads calls and sandbox time at, read at each use: the person's in
 * Settings › Prices (else the table's) and Settings › Sandboxes (there is no table).
 */
export function ledgerPrices(settings: () => { prices?: Readonly<Record<string, PriceOverride>>; sandboxes?: SandboxSettings }): [PriceNow, SandboxPriceNow] {
  return [(modelId) => resolvePrice(modelId, settings().prices), (provider) => (isSandboxProviderName(provider) ? (settings().sandboxes?.pricesPerHourUsd?.[provider] ?? null) : null)];
}

/** Sandbox time's cost for a terminal or a document: `$0.0123`, `$0.0123 + no price` (some time has none), `no price` (none has). */
export function sandboxCostText(sums: Pick<SandboxSums, 'unpricedSeconds' | 'costUsd'>): string {
  if (sums.costUsd === null) return 'no price';
  return sums.unpricedSeconds !== undefined ? `${formatUsd(sums.costUsd)} + no price` : formatUsd(sums.costUsd);
}

/** A sum's cost for a terminal or a document: `$0.0123`, `$0.0123 + unknown` (some calls have no price), `—` (none has). */
export function costText(sums: Pick<UsageSums, 'unpricedCalls' | 'costUsd'>): string {
  if (sums.costUsd === null) return '—';
  return sums.unpricedCalls > 0 ? `${formatUsd(sums.costUsd)} + unknown` : formatUsd(sums.costUsd);
}

/** The turns that drifted (SPEC §26), judged against each thread's whole history, of those that ended since `since`. */
export function driftsSince(ledger: Pick<LedgerReader, 'turns'>, since?: string): CostDrift[] {
  const turns = ledger.turns();
  const from = since !== undefined ? sinceInstant(since) : undefined;
  const ended = new Map(turns.map((t) => [`${t.threadId}\n${t.turn}`, t.lastAt]));
  return costDrifts(turns).filter((d) => from === undefined || ended.get(`${d.thread}\n${d.turn}`)! >= from);
}

/** What a sandbox row of no thread is called. */
export const NO_THREAD_LABEL = 'No thread';

export function usageReport(ledger: LedgerReader, threads: Pick<ThreadStore, 'get'>, query: { by: UsageGrouping; since?: string }): UsageReport {
  const asked = { by: query.by, ...(query.since !== undefined ? { since: query.since } : {}) };
  const { rows, total } = ledger.report(asked);
  const sandboxes = ledger.sandboxUsage(asked);
  /** A row's label (and by thread, the thread's folder). */
  const labelled = (key: string): { label: string; folder?: string; agent?: string } => {
    if (query.by !== 'thread') return { label: key };
    if (key === '') return { label: NO_THREAD_LABEL };
    const thread = threads.get(key);
    return { label: thread?.title || key, ...(thread !== undefined ? { folder: thread.folder } : {}), ...(thread?.agent !== undefined ? { agent: thread.agent } : {}) };
  };
  return {
    ...asked,
    rows: rows.map((row) => ({ ...row, ...labelled(row.key) })),
    total,
    sandboxes: sandboxes.rows.map((row) => ({ ...row, ...labelled(row.key) })),
    sandboxTotal: sandboxes.total,
    drifts: driftsSince(ledger, query.since),
  };
}
