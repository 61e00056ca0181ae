// `--trust` (SPEC §9): the folder's configuration as it is when the session opens is trusted
// for this session only, on top of what the data folder's trust.json says. Nothing is
// recorded, and an entry that changes afterwards (or appears) is not trusted by it: the
// session trusted what it was started on, not whatever the folder holds later.

import { realPathOf } from '../fs/real-path';
import type { TrustGate } from './types';
import type { TrustEntry } from '../config/trust-entry';

export class SessionTrust implements TrustGate {
  private readonly granted = new Map<string, Map<string, string>>();
  private grants = 0;

  constructor(private readonly base: TrustGate) {}

  /** Trusts these entries' current content in `folder` for this session. */
  grant(folder: string, entries: readonly Pick<TrustEntry, 'key' | 'digest'>[]): void {
    const key = realPathOf(folder);
    const mine = this.granted.get(key) ?? new Map<string, string>();
    for (const entry of entries) mine.set(entry.key, entry.digest);
    this.granted.set(key, mine);
    this.grants++;
  }

  isTrusted(folder: string, entry: Pick<TrustEntry, 'key' | 'digest'>): boolean {
    return this.granted.get(realPathOf(folder))?.get(entry.key) === entry.digest || this.base.isTrusted(folder, entry);
  }

  version(): string {
    return `${this.base.version()}+${this.grants}`;
  }
}
