// The terminal's colours in each theme. Every colour a program may write text in reads at
// 4.5:1 or more on the terminal's background (but black on the dark one, which programs use
// as a background); dim text is drawn in the window's muted colour (terminal.css).
// src-renderer/src/styles/theme-contrast.test.ts holds them to it.

import type { ITheme } from '@xterm/xterm';

export const TERMINAL_THEMES: Record<'dark' | 'light', ITheme> = {
  dark: {
    background: '#0f1117',
    foreground: '#d7dae0',
    cursor: '#d7dae0',
    selectionBackground: '#3a4a6b',
    black: '#1d1f27', red: '#f07178', green: '#a6d189', yellow: '#e5c07b', blue: '#7aa2f7', magenta: '#c792ea', cyan: '#89ddff', white: '#d7dae0',
    brightBlack: '#787e88', brightRed: '#ff8b92', brightGreen: '#c3e88d', brightYellow: '#ffd580', brightBlue: '#9ab8ff', brightMagenta: '#ddb6f2', brightCyan: '#a8e8ff', brightWhite: '#ffffff',
  },
  light: {
    background: '#fbfbfc',
    foreground: '#24292f',
    cursor: '#24292f',
    selectionBackground: '#c8d7f5',
    black: '#24292f', red: '#cf222e', green: '#116329', yellow: '#7d5600', blue: '#0550ae', magenta: '#8250df', cyan: '#0a7b83', white: '#6b737d',
    brightBlack: '#57606a', brightRed: '#a40e26', brightGreen: '#1a7f37', brightYellow: '#633c01', brightBlue: '#1b72d1', brightMagenta: '#835ec7', brightCyan: '#2a7c90', brightWhite: '#6c737a',
  },
};
