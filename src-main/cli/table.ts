import { terminalSafe } from '../core/text/terminal-safe';

export interface TableFit {
  /** The terminal's width: the columns in `cut` are shortened, with an ellipsis, so that each row fits. */
  width: number;
  /** The columns that may be shortened, and which end of them goes (`start` keeps a path's end). */
  cut: Partial<Record<number, 'start' | 'end'>>;
}

/** Rows as aligned columns two spaces apart, each cell on one line; nothing hidden unless `fit` says what may be shortened. */
export function table(rows: string[][], fit?: TableFit): string {
  if (rows.length === 0) return '';
  // Escaped before they are measured, so the columns line up.
  const cells = rows.map((r) => r.map((cell) => terminalSafe(cell, { singleLine: true })));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const limits = fit !== undefined ? fitWidths(widths, fit) : widths;
  return cells
    .map((r) => r.map((cell, i) => shorten(cell, limits[i]!, fit?.cut[i])).map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(limits[i]!))).join('  ') + '\n')
    .join('');
}

/** Each column's width once the columns that may be cut share what the others leave of the line, each up to what it needs. */
function fitWidths(widths: readonly number[], fit: TableFit): number[] {
  const gaps = 2 * (widths.length - 1);
  if (widths.reduce((a, b) => a + b, 0) + gaps <= fit.width) return [...widths];
  const cuttable = widths.map((_, i) => i).filter((i) => fit.cut[i] !== undefined);
  const fixed = widths.reduce((sum, w, i) => (fit.cut[i] === undefined ? sum + w : sum), 0) + gaps;
  let room = fit.width - fixed;
  const limits = [...widths];
  // The narrowest first: one that needs less than its share leaves the rest to the others.
  const order = [...cuttable].sort((a, b) => widths[a]! - widths[b]!);
  order.forEach((column, n) => {
    const share = Math.floor(room / (order.length - n));
    limits[column] = Math.min(widths[column]!, Math.max(MIN_CUT_WIDTH, share));
    room -= limits[column]!;
  });
  return limits;
}

const MIN_CUT_WIDTH = 8;

function shorten(cell: string, width: number, cut: 'start' | 'end' | undefined): string {
  if (cut === undefined || cell.length <= width) return cell;
  return cut === 'start' ? `…${cell.slice(cell.length - width + 1)}` : `${cell.slice(0, width - 1)}…`;
}
