import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { debounce, DEFAULT_STATE, loadWindowState, MIN_HEIGHT, MIN_WIDTH, sanitizeWindowState, saveWindowState } from './window-state';

const screens = [
  { x: 0, y: 0, width: 1920, height: 1040 },
  { x: 1920, y: 0, width: 1280, height: 1024 },
];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('window state', () => {
  it('keeps a position whose title bar is on a screen', () => {
    expect(sanitizeWindowState({ x: 100, y: 50, width: 1000, height: 700, maximized: true }, screens)).toEqual({ x: 100, y: 50, width: 1000, height: 700, maximized: true });
    expect(sanitizeWindowState({ x: 2000, y: 10, width: 800, height: 600 }, screens)).toMatchObject({ x: 2000, y: 10 });
    // Mostly off the left edge, but enough title bar left to grab.
    expect(sanitizeWindowState({ x: -850, y: 10, width: 1000, height: 600 }, screens)).toMatchObject({ x: -850 });
  });

  it('drops positions that would be off every screen (a monitor that is gone)', () => {
    for (const saved of [
      { x: 5000, y: 100, width: 800, height: 600 },
      { x: 100, y: -400, width: 800, height: 600 },
      { x: 100, y: 1030, width: 800, height: 600 },
      { x: -790, y: 10, width: 800, height: 600 },
    ]) {
      const state = sanitizeWindowState(saved, screens);
      expect(state.x, JSON.stringify(saved)).toBeUndefined();
      expect(state.y).toBeUndefined();
      expect(state.width).toBe(800);
    }
  });

  it('clamps sizes and ignores junk', () => {
    expect(sanitizeWindowState({ width: 10, height: 10 }, screens)).toMatchObject({ width: MIN_WIDTH, height: MIN_HEIGHT });
    expect(sanitizeWindowState({ width: 99999, height: 99999 }, screens)).toMatchObject({ width: 1920, height: 1040 });
    expect(sanitizeWindowState({ width: 'wide', height: null, x: NaN, y: 3 }, screens)).toEqual({ width: DEFAULT_STATE.width, height: DEFAULT_STATE.height, maximized: false });
    expect(sanitizeWindowState(null, screens)).toEqual(DEFAULT_STATE);
    expect(sanitizeWindowState([1, 2], [])).toMatchObject({ width: DEFAULT_STATE.width });
  });

  it('round-trips through its file and survives a missing or corrupt one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-window-'));
    dirs.push(dir);
    const file = join(dir, 'nested', 'window-state.json');
    expect(loadWindowState(file, screens)).toEqual(DEFAULT_STATE);
    saveWindowState(file, { x: 10, y: 20, width: 900, height: 700, maximized: false });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ x: 10, y: 20, width: 900, height: 700, maximized: false });
    expect(loadWindowState(file, screens)).toEqual({ x: 10, y: 20, width: 900, height: 700, maximized: false });
    writeFileSync(file, '{ broken');
    expect(loadWindowState(file, screens)).toEqual(DEFAULT_STATE);
  });

  it('debounces saves and flushes a pending one', () => {
    let saves = 0;
    const saver = debounce(() => saves++, 60_000);
    saver.schedule();
    saver.schedule();
    expect(saves).toBe(0);
    saver.flush();
    expect(saves).toBe(1);
    saver.flush();
    expect(saves).toBe(1);
    saver.schedule();
    saver.cancel();
    saver.flush();
    expect(saves).toBe(1);
  });
});
