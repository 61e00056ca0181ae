// Writes to one file run one at a time: two edit_file calls of the same turn (or of two
// subagents) would otherwise both read the old text and one edit would be lost.

import type { Backend } from '../backends/protocol';

const tails = new WeakMap<Backend, Map<string, Promise<unknown>>>();

export async function withPathLock<T>(backend: Backend, path: string, work: () => Promise<T>): Promise<T> {
  let locks = tails.get(backend);
  if (!locks) {
    locks = new Map();
    tails.set(backend, locks);
  }
  const previous = locks.get(path) ?? Promise.resolve();
  const current = previous.catch(() => undefined).then(work);
  locks.set(path, current);
  try {
    return await current;
  } finally {
    if (locks.get(path) === current) locks.delete(path);
  }
}
