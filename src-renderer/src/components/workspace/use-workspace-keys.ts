// The window's keyboard map: F6 between regions, Ctrl+Shift+` between terminal and message box (Esc
// then Tab out of the terminal), Esc closes a narrow window's drawer; the keyboard never left on nothing.

import { useEffect } from 'react';
import { useFocusRescue } from '../../lib/focus-rescue';
import { useRegionNavigation } from '../use-region-navigation';
import { useTerminalFocus } from '../use-terminal-focus';
import type { SidePanels } from './use-side-panels';

export function useWorkspaceKeys({ layout, narrow, drawer, setDrawer, terminalRef, toggleTerminal }: SidePanels): void {
  useTerminalFocus(terminalRef, layout.terminalOpen, toggleTerminal);
  useEffect(() => {
    if (!narrow || drawer === null) return undefined;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape' && !e.defaultPrevented) setDrawer(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [narrow, drawer, setDrawer]);
  useRegionNavigation();
  useFocusRescue();
}
