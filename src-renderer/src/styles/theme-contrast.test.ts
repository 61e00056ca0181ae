// WCAG 2.2 AA contrast of the theme's tokens (issue 27): every text colour reads at 4.5:1 or
// more on every surface it is drawn on, the tints (`*-soft`, translucent) composited over each
// surface included, in both themes; the focus ring and accent controls at 3:1 or more.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TERMINAL_THEMES } from '../lib/terminal-theme';

type Rgba = [number, number, number, number];

const css = readFileSync(join(import.meta.dirname, 'theme.css'), 'utf8');

/** The custom properties of the rule whose selector starts at `selector`. */
function tokens(selector: string): Record<string, string> {
  const start = css.indexOf(selector);
  const body = css.slice(css.indexOf('{', start) + 1, css.indexOf('}', start));
  return Object.fromEntries([...body.matchAll(/--([\w-]+):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

function parse(value: string): Rgba {
  const hex = /^#([0-9a-f]{6})$/i.exec(value);
  if (hex) return [0, 2, 4].map((i) => parseInt(hex[1]!.slice(i, i + 2), 16)).concat(1) as Rgba;
  const rgba = /^rgba\(([^)]+)\)$/.exec(value);
  if (rgba) return rgba[1]!.split(',').map(Number) as Rgba;
  throw new Error(`not a colour: ${value}`);
}

/** `top` (maybe translucent) drawn over the opaque `under`. */
const over = (top: Rgba, under: Rgba): Rgba => [0, 1, 2].map((i) => top[i]! * top[3] + under[i]! * (1 - top[3])).concat(1) as Rgba;

function luminance([r, g, b]: Rgba): number {
  const channel = (c: number): number => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

function contrast(a: Rgba, b: Rgba): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const THEMES = { dark: tokens(":root[data-theme='dark']"), light: tokens(":root[data-theme='light']") };
const SURFACES = ['bg', 'surface', 'surface-2', 'surface-3', 'user-bubble', 'code-bg'];
const TINTS = ['accent-soft', 'success-soft', 'warn-soft', 'danger-soft'];
const TEXT = ['text', 'text-soft', 'muted', 'accent', 'accent-strong', 'success', 'warn', 'danger'];
const CODE_TEXT = ['hl-keyword', 'hl-string', 'hl-number', 'hl-comment', 'hl-title', 'hl-type', 'hl-attr', 'hl-meta', 'hl-add', 'hl-del'];

/** The pairs below `min`, as `fg on bg ratio` lines (an empty list passes). */
function below(min: number, pairs: Array<[string, Rgba, string, Rgba]>): string[] {
  return pairs.filter(([, fg, , bg]) => contrast(fg, bg) < min).map(([f, fg, b, bg]) => `${f} on ${b}: ${contrast(fg, bg).toFixed(2)}`);
}

describe.each(Object.entries(THEMES))('the %s theme', (_name, theme) => {
  const color = (token: string): Rgba => parse(theme[token] ?? '');
  const backgrounds: Array<[string, Rgba]> = [
    ...SURFACES.map((s): [string, Rgba] => [s, color(s)]),
    ...TINTS.flatMap((t) => ['bg', 'surface', 'surface-2', 'surface-3'].map((s): [string, Rgba] => [`${t} over ${s}`, over(color(t), color(s))])),
  ];

  it('its text colours read at 4.5:1 on every surface and tint', () => {
    expect(below(4.5, TEXT.flatMap((t) => backgrounds.map(([b, bg]): [string, Rgba, string, Rgba] => [t, color(t), b, bg])))).toEqual([]);
  });

  it('its code colours read at 4.5:1 in code blocks, file views and diffs', () => {
    const code = ['code-bg', 'surface', 'surface-2'].map((s): [string, Rgba] => [s, color(s)]);
    const diff: Array<[string, Rgba]> = [['success-soft over surface', over(color('success-soft'), color('surface'))], ['danger-soft over surface', over(color('danger-soft'), color('surface'))]];
    expect(below(4.5, CODE_TEXT.flatMap((t) => [...code, ...diff].map(([b, bg]): [string, Rgba, string, Rgba] => [t, color(t), b, bg])))).toEqual([]);
  });

  it('the text on an accent button reads at 4.5:1; the accent (focus ring, controls) at 3:1 on every surface', () => {
    expect(below(4.5, ['accent', 'accent-strong'].map((b): [string, Rgba, string, Rgba] => ['on-accent', color('on-accent'), b, color(b)]))).toEqual([]);
    expect(below(3, SURFACES.map((s): [string, Rgba, string, Rgba] => ['accent', color('accent'), s, color(s)]))).toEqual([]);
  });

  it('the focus ring shows at 3:1 on every surface and tint it may be drawn over', () => {
    expect(below(3, backgrounds.map(([b, bg]): [string, Rgba, string, Rgba] => ['focus-ring', color('focus-ring'), b, bg]))).toEqual([]);
  });
});

describe.each(Object.entries(TERMINAL_THEMES))('the terminal in the %s theme', (name, palette) => {
  it('writes every colour a program may choose at 4.5:1 on its background, and dim text in the muted colour', () => {
    const background = parse(palette.background!);
    const ink = Object.entries(palette).filter(([key]) => !['background', 'cursor', 'selectionBackground'].includes(key) && !(name === 'dark' && key === 'black'));
    expect(below(4.5, ink.map(([key, value]): [string, Rgba, string, Rgba] => [key, parse(value as string), 'background', background]))).toEqual([]);
    // terminal.css draws .xterm-dim in --muted.
    const muted = parse((name === 'dark' ? THEMES.dark : THEMES.light).muted!);
    expect(contrast(muted, background)).toBeGreaterThanOrEqual(4.5);
  });
});

describe('the contrast ratio', () => {
  it('is WCAG’s: black on white 21:1, a colour on itself 1:1', () => {
    expect(contrast([0, 0, 0, 1], [255, 255, 255, 1])).toBeCloseTo(21, 5);
    expect(contrast([102, 112, 133, 1], [102, 112, 133, 1])).toBe(1);
    // #767676 on white, the classic 4.5:1 grey.
    expect(contrast(parse('#767676'), parse('#ffffff'))).toBeCloseTo(4.54, 2);
  });
});
