// How deep a parsed JSON value nests, measured without recursion (issue 37). JSON.parse takes
// any depth, but JSON.stringify, canonicalJson and every recursive walk after it overflow the
// stack on a value nested some thousands deep: configuration, tool arguments and other text
// from outside is refused past MAX_JSON_DEPTH instead.

/** Far deeper than any configuration or tool arguments a person or a model writes. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays or objects more than `max` levels deep. */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
