// A recorded state's content as text, for the diffs and for who wrote each line.

import type { CheckpointStore } from './store';
import type { FileState } from './types';

const MAX_DIFF_BYTES = 2 * 1024 * 1024;

/** The state's content as text (a link's target); '' when absent; null when binary, too big or not kept. */
export function storedText(store: CheckpointStore, state: FileState | null): string | null {
  if (state === null) return '';
  if (state.type === 'l') return store.blob(state.hash)?.toString('utf8') ?? null;
  if (state.type !== 'f') return null;
  const data = store.blob(state.hash);
  if (data === undefined || data.length > MAX_DIFF_BYTES || isBinary(data)) return null;
  return data.toString('utf8');
}

export function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

