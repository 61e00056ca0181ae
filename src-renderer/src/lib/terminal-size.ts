// The size, in character cells, of the window's terminal views. The server starts an agent
// command's pty at the size the window last reported, so that what the command lays out to
// its width (pytest's `[100%]`, a progress bar) fits the view that shows it. A fitted view
// reports its own size; a collapsed Terminal panel reports what a view in it would hold.

export const TERMINAL_FONT = { family: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace', size: 13, lineHeight: 1.15 };

/** What a view loses to its host's left padding (terminal.css `.terminal-host`) and xterm's scroll bar. */
const HOST_CHROME_PX = 10 + 14;
/** Rows of a collapsed panel: it has no height to measure. */
const COLLAPSED_ROWS = 24;

let fittedCellWidth: number | undefined;

/** A fitted view's cell width (px), the most exact measure for the estimate. */
export function rememberCellWidth(px: number): void {
  if (Number.isFinite(px) && px > 0) fittedCellWidth = px;
}

function cellWidth(): number {
  if (fittedCellWidth !== undefined) return fittedCellWidth;
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return TERMINAL_FONT.size * 0.62;
  context.font = `${TERMINAL_FONT.size}px ${TERMINAL_FONT.family}`;
  return context.measureText('W'.repeat(32)).width / 32 || TERMINAL_FONT.size * 0.62;
}

/**
 * The size a terminal view as wide as `widthPx` would fit to. Rounded down and one column
 * short of it: a pty a little narrower than its view only leaves space, a wider one wraps.
 */
export function estimateTerminalSize(widthPx: number): { cols: number; rows: number } {
  const cols = Math.floor((widthPx - HOST_CHROME_PX) / cellWidth()) - 1;
  return { cols: Math.min(1000, Math.max(2, cols)), rows: COLLAPSED_ROWS };
}
