// Folder trust (SPEC §9): the report of what a folder's configuration would load, and the gate that says what is trusted.

import type { TrustEntry } from '../config/trust-entry';

export interface TrustReport {
  folder: string;
  /** Everything the folder's configuration would load. */
  entries: TrustEntry[];
  /** Of those, the ones not (or no longer) trusted. */
  untrusted: TrustEntry[];
  problems: string[];
}

/**
 * Whether an entry, with this content, is trusted in a folder: the store in the data folder
 * (trust.json), or a session's own trust on top of it (`--trust`). Asked again at every step.
 */
export interface TrustGate {
  isTrusted(folder: string, entry: Pick<TrustEntry, 'key' | 'digest'>): boolean;
  /** Changes whenever what is trusted may have changed (here or in another process): a cheap stat. */
  version(): string;
}
