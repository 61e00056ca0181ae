// A long thread's rows near the view are on the page; the others are not rendered at all,
// each run of them one spacer as tall as they were (issue 98: hidden but mounted rows still
// cost React and the page a walk over thousands of them every page and frame). What a row
// holds that the person set (an opened card) lives in the conversation's kept state
// (useKeptOpen), so a row rendered again comes back as it was left. The rows asking for an
// approval and the one holding the focus always stay.

import { rowsBetween } from '../lib/row-window';

/** With more rows than this, those further than NEAR from the view leave the page. */
const WINDOW_FROM = 300;
const NEAR = 1000;
/** A row never laid out (an earlier page's, above the view) is counted this tall until it is. */
const GUESS = 80;

export interface RowsShown {
  /** The rows near the view, or null: every row. */
  near: ReadonlySet<string> | null;
  /** The log's gap between rows. */
  gap: number;
  /** The row holding the focus, which stays on the page. */
  focused: string | null;
}

const rowsOf = (log: HTMLElement): HTMLElement[] => [...log.querySelectorAll<HTMLElement>(':scope > [data-row]')];

/** The first row in view, and how far below the log's top. */
function anchorOf(log: HTMLElement, rows: readonly HTMLElement[]): { key: string; offset: number } | null {
  const top = log.getBoundingClientRect().top;
  const row = rows.find((r) => r.getBoundingClientRect().bottom > top);
  return row ? { key: row.dataset.row!, offset: row.getBoundingClientRect().top - top } : null;
}

/** One open thread's window of rows: ItemList renders what it says; use-log-scroll moves it as the log scrolls or changes. */
export class RowWindow {
  /** The rows in order, as last rendered. */
  keys: readonly string[] = [];
  private readonly heights = new Map<string, number>();
  /** The sum of `heights`. */
  private measuredSum = 0;
  private shown: RowsShown = { near: null, gap: 0, focused: null };
  /** The first row in view when the window moved, and how far below the log's top: it stays there. */
  private anchor: { key: string; offset: number } | null = null;
  private readonly listeners = new Set<() => void>();
  private log: HTMLElement | null = null;
  private frame = 0;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): RowsShown => this.shown;

  measured(key: string): boolean {
    return this.heights.has(key);
  }

  /** The height a run of hidden rows takes, gaps between them included. */
  spacer(keys: readonly string[]): number {
    const guess = this.guess();
    return keys.reduce((sum, key) => sum + (this.heights.get(key) ?? guess), 0) + Math.max(0, keys.length - 1) * this.shown.gap;
  }

  private guess(): number {
    return this.heights.size === 0 ? GUESS : this.measuredSum / this.heights.size;
  }

  /** Measures the rows on the page and moves the window to the view. */
  update(log: HTMLElement): void {
    this.log = log;
    cancelAnimationFrame(this.frame);
    this.move(log);
  }

  private move(log: HTMLElement): void {
    const rows = rowsOf(log);
    for (const row of rows) {
      const height = row.getBoundingClientRect().height;
      this.measuredSum += height - (this.heights.get(row.dataset.row!) ?? 0);
      this.heights.set(row.dataset.row!, height);
    }
    const active = document.activeElement;
    const focused = active && log.contains(active) ? (active.closest<HTMLElement>('[data-row]')?.dataset.row ?? null) : null;
    if (this.keys.length <= WINDOW_FROM) {
      if (this.shown.near !== null) this.set({ near: null, gap: this.shown.gap, focused }, log, rows);
      return;
    }
    const gap = parseFloat(getComputedStyle(log).rowGap) || 0;
    const first = log.querySelector(':scope > [data-row], :scope > .conversation-spacer');
    if (first === null) return;
    const box = log.getBoundingClientRect();
    // Where each row is in the log's scrolled content, as if every row were on the page.
    let y = first.getBoundingClientRect().top - box.top + log.scrollTop;
    const guess = this.guess();
    const edges = this.keys.map((key) => {
      const top = y;
      y += (this.heights.get(key) ?? guess) + gap;
      return { top, bottom: y - gap };
    });
    let { first: from, end } = rowsBetween(edges.length, (i) => edges[i]!, log.scrollTop - NEAR, log.scrollTop + log.clientHeight + NEAR);
    if (from === end) [from, end] = [Math.min(from, edges.length - 1), Math.min(from, edges.length - 1) + 1];
    const near = this.shown.near;
    const same = near !== null && near.size === end - from && near.has(this.keys[from]!) && near.has(this.keys[end - 1]!);
    // A move not yet on the page keeps to what is on screen now.
    if (this.anchor !== null) this.anchor = anchorOf(log, rows);
    if (same && gap === this.shown.gap && focused === this.shown.focused) return;
    this.set({ near: same ? near : new Set(this.keys.slice(from, end)), gap, focused }, log, rows);
  }

  private set(shown: RowsShown, log: HTMLElement, rows: readonly HTMLElement[]): void {
    this.anchor = anchorOf(log, rows);
    this.shown = shown;
    for (const listener of this.listeners) listener();
  }

  /** After the rows were rendered again: what was on screen stays where it was; the new rows are measured. */
  rendered(shown: RowsShown): void {
    const kept = this.anchor;
    const log = this.log;
    if (kept === null || log === null) return;
    if (shown === this.shown) this.anchor = null;
    const row = rowsOf(log).find((r) => r.dataset.row === kept.key);
    if (row) log.scrollTop += row.getBoundingClientRect().top - log.getBoundingClientRect().top - kept.offset;
    // The rows that came are measured, and the window set by their real heights, in the next frame: not all in this one.
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.move(log));
  }
}
