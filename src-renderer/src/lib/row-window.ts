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

/** Of `count` rows laid out top to bottom (`edges(i)`, row i's top and bottom), those reaching into [top, bottom). */
export function rowsBetween(count: number, edges: (i: number) => { top: number; bottom: number }, top: number, bottom: number): RowWindow {
  const first = firstWhere(count, (i) => edges(i).bottom > top);
  return { first, end: Math.max(first, firstWhere(count, (i) => edges(i).top >= bottom)) };
}

/** The first of 0..count-1 for which `holds` (false up to some index, true from it on), or count. */
function firstWhere(count: number, holds: (i: number) => boolean): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (holds(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}
