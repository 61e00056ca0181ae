import { describe, expect, it } from 'vitest';
import { rowWindow } from './row-window';

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
