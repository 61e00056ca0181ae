import { describe, expect, it } from 'vitest';
import { keepOrder } from './stable-order';

const key = (item: { id: string }) => item.id;
const ids = (items: Array<{ id: string }>) => items.map(key);

describe('keepOrder', () => {
  it('keeps the shown order, leaves out rows that went, and adds new ones at the end', () => {
    const items = [{ id: 'c' }, { id: 'a' }, { id: 'd' }];
    expect(ids(keepOrder(['a', 'b', 'c'], items, key))).toEqual(['a', 'c', 'd']);
  });

  it('with nothing shown yet, is the list as it is', () => {
    expect(ids(keepOrder([], [{ id: 'b' }, { id: 'a' }], key))).toEqual(['b', 'a']);
  });

  it('gives the new items, not the ones shown before', () => {
    const fresh = { id: 'a', state: 'done' };
    expect(keepOrder(['a'], [fresh], key)[0]).toBe(fresh);
  });
});
