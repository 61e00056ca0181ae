/**
 * `items` in order, cut into groups whose bytes (`bytesOf` each) stay within `limit`; a group
 * holds one item at least. For command lines kept under ARG_MAX and requests kept under a size.
 */
export function byteGroups<T>(items: readonly T[], limit: number, bytesOf: (item: T) => number): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (group.length > 0 && bytes + size > limit) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(item);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
