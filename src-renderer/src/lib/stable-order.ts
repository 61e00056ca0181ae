// A list that keeps its rows where they are while the person points at it: rows whose order
// changed (a state changed, a newer one came) keep the places they were shown in, new rows
// come at the end, rows that went are left out. Pure, for the Agents view's hook.

/** `items` in the order `shown` had them (by `keyOf`), the ones `shown` did not have after, in their own order. */
export function keepOrder<T>(shown: readonly string[], items: readonly T[], keyOf: (item: T) => string): T[] {
  const byKey = new Map(items.map((item) => [keyOf(item), item]));
  const kept = shown.flatMap((key) => {
    const item = byKey.get(key);
    return item === undefined ? [] : [item];
  });
  const had = new Set(shown);
  return [...kept, ...items.filter((item) => !had.has(keyOf(item)))];
}
