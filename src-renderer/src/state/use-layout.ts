// The panel layout the person chose, remembered in localStorage, resolved for the current
// window size (see lib/layout).

import { useCallback, useEffect, useMemo, useState } from 'react';
import { parsePrefs, prefsToStore, resolveLayout, type FoldablePanel, type Layout, type LayoutPrefs, type TerminalState, type Viewport } from '../lib/layout';

const STORAGE_KEY = 'deepdesk.layout.v1';

type SizeKey = 'leftWidth' | 'rightWidth' | 'viewerWidth' | 'terminalHeight' | 'leftSplit' | 'rightSplit';

export interface LayoutControls {
  layout: Layout;
  viewport: Viewport;
  prefs: LayoutPrefs;
  setSize(key: SizeKey, value: number | undefined): void;
  togglePanel(panel: FoldablePanel, collapsed?: boolean): void;
  setTerminal(state: TerminalState | ((old: TerminalState | undefined) => TerminalState)): void;
}

function readPrefs(): LayoutPrefs {
  try {
    return parsePrefs(window.localStorage.getItem(STORAGE_KEY));
  } catch {
    return { collapsed: {} };
  }
}

function currentViewport(): Viewport {
  return { width: window.innerWidth, height: window.innerHeight };
}

export function useLayout(viewing: boolean): LayoutControls {
  const [prefs, setPrefs] = useState<LayoutPrefs>(readPrefs);
  const [viewport, setViewport] = useState<Viewport>(currentViewport);

  useEffect(() => {
    const onResize = (): void => setViewport(currentViewport());
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  useEffect(() => {
    try {
      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(prefsToStore(prefs)));
    } catch {
      // Storage full or disabled: the layout just is not remembered.
    }
  }, [prefs]);

  const setSize = useCallback((key: SizeKey, value: number | undefined) => {
    setPrefs((p) => {
      const next = { ...p };
      if (value === undefined) delete next[key];
      else next[key] = value;
      return next;
    });
  }, []);

  const togglePanel = useCallback((panel: FoldablePanel, collapsed?: boolean) => {
    setPrefs((p) => ({ ...p, collapsed: { ...p.collapsed, [panel]: collapsed ?? !p.collapsed[panel] } }));
  }, []);

  const setTerminal = useCallback((state: TerminalState | ((old: TerminalState | undefined) => TerminalState)) => {
    setPrefs((p) => {
      const terminal = typeof state === 'function' ? state(p.terminal) : state;
      return terminal === p.terminal ? p : { ...p, terminal };
    });
  }, []);

  const layout = useMemo(() => resolveLayout(prefs, viewport, viewing), [prefs, viewport, viewing]);
  return { layout, viewport, prefs, setSize, togglePanel, setTerminal };
}
