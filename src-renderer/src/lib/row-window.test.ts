import { describe, expect, it } from 'vitest';
import { rowsBetween, rowWindow } from './row-window';

describe('rowWindow', () => {
  it('renders the rows in view and the overscan either side, within the list', () => {
    expect(rowWindow(0, 440, 44, 100_000, 5)).toEqual({ first: 0, end: 15 });
    expect(rowWindow(44 * 1000 + 10, 440, 44, 100_000, 5)).toEqual({ first: 995, end: 1016 });
    expect(rowWindow(44 * 99_990, 440, 44, 100_000, 5)).toEqual({ first: 99_985, end: 100_000 });
  });

  it('copes with an empty list, a list shorter than the view and a view not yet measured', () => {
    expect(rowWindow(0, 440, 44, 0, 5)).toEqual({ first: 0, end: 0 });
    expect(rowWindow(0, 440, 44, 3, 5)).toEqual({ first: 0, end: 3 });
    expect(rowWindow(0, 0, 44, 50, 5)).toEqual({ first: 0, end: 5 });
    // Scrolled past the end after the list shrank.
    expect(rowWindow(44 * 500, 440, 44, 20, 5)).toEqual({ first: 20, end: 20 });
  });
});

describe('rowsBetween', () => {
  // Rows of 10, 30, 10, 30… px, 5 px apart.
  const tops: number[] = [];
  for (let i = 0, y = 0; i < 1000; y += (i % 2 === 0 ? 10 : 30) + 5, i++) tops.push(y);
  const edges = (i: number) => ({ top: tops[i]!, bottom: tops[i]! + (i % 2 === 0 ? 10 : 30) });

  it('finds the rows that reach into the range, a row cut at either edge included', () => {
    // Row 1 is 15–45, row 2 50–60, row 4 100–110, row 5 115–145.
    expect(rowsBetween(1000, edges, 0, 100)).toEqual({ first: 0, end: 4 });
    expect(rowsBetween(1000, edges, 44, 115)).toEqual({ first: 1, end: 5 });
    expect(rowsBetween(1000, edges, 45, 116)).toEqual({ first: 2, end: 6 });
  });

  it('copes with an empty list and a range above or below every row', () => {
    expect(rowsBetween(0, edges, 0, 100)).toEqual({ first: 0, end: 0 });
    expect(rowsBetween(1000, edges, -500, -100)).toEqual({ first: 0, end: 0 });
    expect(rowsBetween(1000, edges, 1e6, 2e6)).toEqual({ first: 1000, end: 1000 });
    expect(rowsBetween(1000, edges, -1e6, 1e6)).toEqual({ first: 0, end: 1000 });
  });
});
