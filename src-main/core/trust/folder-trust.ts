// One folder's side of the trust gate: what every loader of the folder's configuration asks
// (is this entry, with this content, trusted here?), asked again at every step.

import { realPathOf } from '../fs/real-path';
import type { TrustGate } from './types';
import type { TrustEntry } from '../config/trust-entry';

export interface FolderTrust {
  /** The folder's real path. */
  readonly folder: string;
  isTrusted(entry: Pick<TrustEntry, 'key' | 'digest'>): boolean;
  /** Changes whenever what is trusted may have changed. */
  version(): string;
}

export function folderTrust(gate: TrustGate, folder: string): FolderTrust {
  const real = realPathOf(folder);
  return { folder: real, isTrusted: (entry) => gate.isTrusted(real, entry), version: () => gate.version() };
}
