import { terminalSafe } from '../core/text/terminal-safe';

/** Rows as aligned columns two spaces apart, each cell on one line with nothing hidden. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? terminalSafe(cell, { singleLine: true }) : terminalSafe(cell, { singleLine: true }).padEnd(widths[i]!))).join('  ') + '\n').join('');
}
