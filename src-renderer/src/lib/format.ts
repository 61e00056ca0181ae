// Small formatters for numbers, sizes, costs and times shown in the window.

export function formatTokens(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '0';
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${trimZero((n / 1000).toFixed(n < 10_000 ? 1 : 0))}k`;
  return `${trimZero((n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1))}M`;
}

/** US dollars: cents and two more places below a dollar (`$0.0123`, `$0.50`), cents up to $100, then whole dollars. */
export function formatCost(usd: number | undefined): string | null {
  if (usd === undefined || !Number.isFinite(usd) || usd < 0) return null;
  if (usd === 0) return '$0.00';
  if (usd < 0.0001) return '< $0.0001';
  if (usd < 1) return `$${usd.toFixed(4).replace(/0{1,2}$/, '')}`;
  if (usd < 100) return `$${usd.toFixed(2)}`;
  return `$${Math.round(usd).toLocaleString('en-US')}`;
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '0 B';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${trimZero(value.toFixed(value < 10 ? 1 : 0))} ${units[unit]}`;
}

/** Share of the context window in use, 0..1 (0 when the window is unknown). */
export function contextFraction(tokens: number, window: number): number {
  if (!(window > 0) || !(tokens > 0)) return 0;
  return Math.min(1, tokens / window);
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", else the date. */
export function formatRelativeTime(iso: string | undefined, now: number = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  if (s < 7 * 86_400) return `${Math.round(s / 86_400)} d ago`;
  return new Date(t).toISOString().slice(0, 10);
}

/** How long ago, in few characters for a narrow row: `now`, `5m`, `3h`, `2d`, then the date (`Nov 3`). */
export function formatShortAge(iso: string | undefined, now: number = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))}m`;
  if (s < 86_400) return `${Math.round(s / 3600)}h`;
  if (s < 7 * 86_400) return `${Math.round(s / 86_400)}d`;
  return new Date(t).toLocaleDateString('en', { month: 'short', day: 'numeric' });
}

/** Cuts `text` to at most `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

function trimZero(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** An elapsed time: "4 s", "1 min 05 s", "1 h 02 min". */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** An error's message as the start of a sentence in the window ("folder not found…" → "Folder not found…"). */
export function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
