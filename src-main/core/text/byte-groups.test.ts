import { describe, expect, it } from 'vitest';
import { byteGroups } from './byte-groups';

describe('byteGroups', () => {
  it('keeps the order and each group within the limit, one item at least per group', () => {
    const items = ['aaaa', 'bb', 'cccccccccc', 'd', 'ee'];
    const groups = byteGroups(items, 6, (s) => s.length);
    expect(groups).toEqual([['aaaa', 'bb'], ['cccccccccc'], ['d', 'ee']]);
    expect(groups.flat()).toEqual(items);
  });

  it('makes no group of nothing', () => {
    expect(byteGroups([], 10, () => 1)).toEqual([]);
  });
});
