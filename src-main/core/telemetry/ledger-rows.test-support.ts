// Rows of the usage ledger as a test wants them (their ids, times and sums as given), written by
// the ledger's one write of a call — the one its observer of the metering point uses.
import type { ModelCallRecord, UsageLedger } from './usage-ledger';

export function recordRow(ledger: UsageLedger, row: ModelCallRecord): void {
  (ledger as unknown as { record(row: ModelCallRecord): void }).record(row);
}
