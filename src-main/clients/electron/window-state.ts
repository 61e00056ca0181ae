// The main window's size and position, kept between runs in a small JSON file (a
// JsonFileStore: an unreadable file is kept aside and said on the console, saves are
// written durably under the file's lock, and a save keeps fields it does not know).

import { z } from 'zod';
import { fieldsShape, JsonFileStore } from '../../core/config/json-file-store';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  width: number;
  height: number;
  /** Absent when the saved position is unusable: the window is then centred. */
  x?: number;
  y?: number;
  maximized: boolean;
}

export const DEFAULT_STATE: WindowState = { width: 1280, height: 820, maximized: false };
export const MIN_WIDTH = 640;
export const MIN_HEIGHT = 420;
/** How much of the title bar must lie on a screen for a saved position to count. */
const VISIBLE_TITLE_WIDTH = 100;
const TITLE_HEIGHT = 32;

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function titleBarVisible(x: number, y: number, width: number, area: Rect): boolean {
  const overlap = Math.min(x + width, area.x + area.width) - Math.max(x, area.x);
  return overlap >= Math.min(VISIBLE_TITLE_WIDTH, width) && y >= area.y && y + TITLE_HEIGHT <= area.y + area.height;
}

/**
 * A usable state from whatever was saved: sizes clamped between the minimum and the largest
 * work area, and the position dropped when the title bar would be off every screen.
 */
export function sanitizeWindowState(saved: unknown, workAreas: readonly Rect[]): WindowState {
  if (typeof saved !== 'object' || saved === null) return { ...DEFAULT_STATE };
  const raw = saved as Record<string, unknown>;
  // With no screen information, only absurd sizes are cut.
  const maxWidth = workAreas.length === 0 ? 16_384 : Math.max(MIN_WIDTH, ...workAreas.map((a) => a.width));
  const maxHeight = workAreas.length === 0 ? 16_384 : Math.max(MIN_HEIGHT, ...workAreas.map((a) => a.height));
  const width = Math.round(Math.min(maxWidth, Math.max(MIN_WIDTH, finite(raw.width) ? raw.width : DEFAULT_STATE.width)));
  const height = Math.round(Math.min(maxHeight, Math.max(MIN_HEIGHT, finite(raw.height) ? raw.height : DEFAULT_STATE.height)));
  const state: WindowState = { width, height, maximized: raw.maximized === true };
  if (finite(raw.x) && finite(raw.y)) {
    const x = Math.round(raw.x);
    const y = Math.round(raw.y);
    if (workAreas.some((area) => titleBarVisible(x, y, width, area))) {
      state.x = x;
      state.y = y;
    }
  }
  return state;
}

// Any number is taken as written; sanitizeWindowState decides what is usable on these screens.
const windowStateShape = fieldsShape({
  width: z.number().optional(),
  height: z.number().optional(),
  x: z.number().optional(),
  y: z.number().optional(),
  maximized: z.boolean().optional(),
});

function windowStateFile(file: string): JsonFileStore<ReturnType<typeof windowStateShape.check>['value']> {
  return new JsonFileStore({ path: file, shape: windowStateShape, onProblem: (problem) => console.warn(`deepdesk: ${problem.message}`) });
}

export function loadWindowState(file: string, workAreas: readonly Rect[]): WindowState {
  const store = windowStateFile(file);
  try {
    return sanitizeWindowState(store.current(), workAreas);
  } finally {
    store.close();
  }
}

/** Throws when the file could not be written (the caller says so and goes on). */
export function saveWindowState(file: string, state: WindowState): void {
  const store = windowStateFile(file);
  try {
    store.update(({ x: _x, y: _y, ...rest }) => ({ ...rest, ...state }));
  } finally {
    store.close();
  }
}

/** Runs `save` once things have been quiet for `ms`; flush() runs a scheduled save now. */
export function debounce(save: () => void, ms: number): { schedule(): void; flush(): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = (): void => {
    timer = undefined;
    save();
  };
  return {
    schedule() {
      clearTimeout(timer);
      timer = setTimeout(run, ms);
    },
    flush() {
      if (timer === undefined) return;
      clearTimeout(timer);
      run();
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
