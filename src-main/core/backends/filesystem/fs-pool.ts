// Bounded concurrency for file-system work.

/** Runs `fn` over `items` (an array or async iterable) with at most `limit` calls in flight. */
export async function forEachLimit<T>(items: Iterable<T> | AsyncIterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const it = Symbol.asyncIterator in items
    ? (items as AsyncIterable<T>)[Symbol.asyncIterator]()
    : toAsync((items as Iterable<T>)[Symbol.iterator]());
  const worker = async () => {
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      await fn(next.value);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
}

function toAsync<T>(it: Iterator<T>): AsyncIterator<T> {
  return { next: async () => it.next() };
}
