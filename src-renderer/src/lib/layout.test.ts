import { describe, expect, it } from 'vitest';
import { MIN_CENTER, RAIL_WIDTH, parsePrefs, prefsToStore, resolveLayout, terminalOnAgentCommand, type LayoutPrefs } from './layout';

const none: LayoutPrefs = { collapsed: {} };

describe('resolveLayout', () => {
  it('leaves the conversation most of the window by default', () => {
    for (const v of [{ width: 1024, height: 700 }, { width: 1400, height: 900 }, { width: 1000, height: 640 }]) {
      const l = resolveLayout(none, v, false);
      expect(l.narrow).toBe(false);
      expect(v.width - l.leftWidth - l.rightWidth).toBeGreaterThanOrEqual(580);
    }
  });

  it('starts with the terminal collapsed whatever the window; what the person chose stays', () => {
    expect(resolveLayout(none, { width: 1400, height: 900 }, false).terminalOpen).toBe(false);
    expect(resolveLayout(none, { width: 1024, height: 700 }, false).terminalOpen).toBe(false);
    expect(resolveLayout(none, { width: 1920, height: 1200 }, false).terminalOpen).toBe(false);
    expect(resolveLayout({ collapsed: {}, terminal: 'open' }, { width: 1024, height: 640 }, false).terminalOpen).toBe(true);
    expect(resolveLayout({ collapsed: {}, terminal: 'shown' }, { width: 1024, height: 640 }, false).terminalOpen).toBe(true);
    expect(resolveLayout({ collapsed: {}, terminal: 'closed' }, { width: 1400, height: 900 }, false).terminalOpen).toBe(false);
  });

  it('the terminal opens for an agent command unless the person closed it', () => {
    expect(terminalOnAgentCommand(undefined)).toBe('shown');
    expect(terminalOnAgentCommand('auto')).toBe('shown');
    expect(terminalOnAgentCommand('shown')).toBe('shown');
    expect(terminalOnAgentCommand('open')).toBe('open');
    expect(terminalOnAgentCommand('closed')).toBe('closed');
  });

  it('remembers what the person chose for the terminal, not what the agent opened', () => {
    expect(prefsToStore({ collapsed: {}, terminal: 'shown', leftWidth: 200 })).toEqual({ collapsed: {}, leftWidth: 200 });
    expect(prefsToStore({ collapsed: {}, terminal: 'closed' })).toEqual({ collapsed: {}, terminal: 'closed' });
    expect(prefsToStore({ collapsed: {}, terminal: 'open' })).toEqual({ collapsed: {}, terminal: 'open' });
    // Read back, an agent's opening is the default again.
    expect(parsePrefs(JSON.stringify({ collapsed: {}, terminal: 'shown' })).terminal).toBeUndefined();
  });

  it('clamps remembered sizes to the window they come back to', () => {
    const big: LayoutPrefs = { collapsed: {}, leftWidth: 900, rightWidth: 900, terminalHeight: 5000, leftSplit: 3 };
    const l = resolveLayout(big, { width: 1100, height: 700 }, false);
    expect(1100 - l.leftWidth - l.rightWidth).toBeGreaterThanOrEqual(MIN_CENTER);
    expect(l.terminalHeight).toBeLessThanOrEqual(700 - 46 - 116 - 200);
    expect(l.leftSplit).toBeLessThanOrEqual(0.85);
  });

  it('folds a column whose panels are all collapsed into a rail', () => {
    const l = resolveLayout({ collapsed: { Agents: true, Threads: true, Files: true } }, { width: 1400, height: 900 }, false);
    expect(l.leftRail).toBe(true);
    expect(l.leftWidth).toBe(RAIL_WIDTH);
    expect(resolveLayout({ collapsed: { Threads: true } }, { width: 1400, height: 900 }, false).leftRail).toBe(false);
    // The Agents view shares the left column: open, it keeps the column open.
    expect(resolveLayout({ collapsed: { Threads: true, Files: true } }, { width: 1400, height: 900 }, false).leftRail).toBe(false);
    // A file being viewed keeps the right column open.
    expect(resolveLayout({ collapsed: { Memories: true, Changes: true } }, { width: 1400, height: 900 }, true).rightRail).toBe(false);
  });

  it('switches to the narrow layout below 1000 px', () => {
    expect(resolveLayout(none, { width: 800, height: 600 }, false).narrow).toBe(true);
    expect(resolveLayout(none, { width: 800, height: 600 }, false).terminalOpen).toBe(false);
  });
});

describe('parsePrefs', () => {
  it('keeps what is well-formed and drops the rest', () => {
    expect(parsePrefs(null)).toEqual({ collapsed: {} });
    expect(parsePrefs('not json')).toEqual({ collapsed: {} });
    expect(parsePrefs('[1]')).toEqual({ collapsed: {} });
    expect(parsePrefs(JSON.stringify({ leftWidth: 300, rightWidth: 'wide', terminalHeight: -4, viewerWidth: Infinity, collapsed: { Files: true, Bogus: true, Threads: 'yes', Agents: true }, terminal: 'closed' }))).toEqual({
      leftWidth: 300,
      collapsed: { Files: true, Agents: true },
      terminal: 'closed',
    });
  });
});
