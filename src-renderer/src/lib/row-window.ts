// Which rows of a long list of equal-height rows to put in the DOM: those in view, plus a
// few either side so that scrolling never shows a gap before React renders the next ones.

export interface RowWindow {
  /** First row rendered. */
  first: number;
  /** One past the last row rendered. */
  end: number;
}

export function rowWindow(scrollTop: number, viewportHeight: number, rowHeight: number, count: number, overscan: number): RowWindow {
  const top = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const bottom = Math.ceil((Math.max(0, scrollTop) + Math.max(0, viewportHeight)) / rowHeight);
  const first = Math.min(count, Math.max(0, top - overscan));
  return { first, end: Math.max(first, Math.min(count, bottom + overscan)) };
}
