// The window's panel layout: which regions are collapsed, how big the resizable ones are,
// and the defaults that leave the conversation most of the window. Pure: the sizes the
// person chose are remembered (localStorage) and clamped again to whatever window they
// come back to, so a size saved on a big screen never pushes the conversation out.

export const SIDE_PANELS = ['Threads', 'Files', 'Memories', 'Changes'] as const;
export type SidePanel = (typeof SIDE_PANELS)[number];
export const LEFT_PANELS: readonly SidePanel[] = ['Threads', 'Files'];

/** The panels the person can fold: the side panels, and `Agents` at the top of the left column (as tall as its rows). */
export const FOLDABLE_PANELS = [...SIDE_PANELS, 'Agents'] as const;
export type FoldablePanel = (typeof FOLDABLE_PANELS)[number];
export const RIGHT_PANELS: readonly SidePanel[] = ['Memories', 'Changes'];

/** Below this width the side panels fold into a switcher. */
export const NARROW_WIDTH = 1000;
/** The conversation column never gets narrower than this while side panels are shown. */
export const MIN_CENTER = 420;
/** A collapsed column: a rail of panel names. */
export const RAIL_WIDTH = 34;

const HEADER = 46;
/** Thread title bar, message box and margins: what the centre column needs besides the log. */
const CENTER_CHROME = 42 + 74;
const MIN_LOG_HEIGHT = 380;

/**
 * `auto`: collapsed until the agent runs a command; `shown`: the agent ran one, so it is open
 * in this window (not remembered: the next start is collapsed again); `open` / `closed`: the
 * person opened or collapsed it themselves, which is remembered and kept.
 */
export type TerminalState = 'auto' | 'shown' | 'open' | 'closed';

export interface LayoutPrefs {
  leftWidth?: number;
  rightWidth?: number;
  viewerWidth?: number;
  terminalHeight?: number;
  /** Share of the left column given to Threads (the rest to Files). */
  leftSplit?: number;
  /** Share of the right column given to Memories (the rest to Changes). */
  rightSplit?: number;
  collapsed: Partial<Record<FoldablePanel, boolean>>;
  /** See TerminalState. */
  terminal?: TerminalState;
}

export interface Viewport {
  width: number;
  height: number;
}

export interface Layout {
  narrow: boolean;
  leftWidth: number;
  rightWidth: number;
  viewerWidth: number;
  terminalHeight: number;
  leftSplit: number;
  rightSplit: number;
  collapsed: Record<FoldablePanel, boolean>;
  terminalOpen: boolean;
  leftRail: boolean;
  rightRail: boolean;
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), Math.max(min, max));
}

export const LIMITS = {
  leftWidth: (v: Viewport) => [160, Math.round(v.width * 0.4)] as const,
  rightWidth: (v: Viewport) => [180, Math.round(v.width * 0.45)] as const,
  viewerWidth: (v: Viewport) => [260, Math.round(v.width * 0.6)] as const,
  terminalHeight: (v: Viewport) => [90, Math.max(90, v.height - HEADER - CENTER_CHROME - 200)] as const,
  split: () => [0.15, 0.85] as const,
};

export function defaultSizes(v: Viewport): Required<Omit<LayoutPrefs, 'collapsed' | 'terminal'>> {
  return {
    leftWidth: clamp(Math.round(v.width * 0.19), 206, 280),
    rightWidth: clamp(Math.round(v.width * 0.19), 206, 320),
    viewerWidth: clamp(Math.round(v.width * 0.36), 320, 620),
    terminalHeight: clamp(v.height - HEADER - CENTER_CHROME - MIN_LOG_HEIGHT - 20, 140, 260),
    leftSplit: 0.42,
    rightSplit: 0.6,
  };
}

/** The layout to draw for these preferences in this window. */
export function resolveLayout(prefs: LayoutPrefs, v: Viewport, viewing: boolean): Layout {
  const d = defaultSizes(v);
  const narrow = v.width < NARROW_WIDTH;
  const collapsed = Object.fromEntries(FOLDABLE_PANELS.map((p) => [p, prefs.collapsed[p] === true])) as Record<FoldablePanel, boolean>;
  const leftRail = LEFT_PANELS.every((p) => collapsed[p]) && collapsed.Agents;
  const rightRail = !viewing && RIGHT_PANELS.every((p) => collapsed[p]);
  let leftWidth = leftRail ? RAIL_WIDTH : clamp(prefs.leftWidth ?? d.leftWidth, ...LIMITS.leftWidth(v));
  let rightWidth = rightRail
    ? RAIL_WIDTH
    : viewing
      ? clamp(prefs.viewerWidth ?? d.viewerWidth, ...LIMITS.viewerWidth(v))
      : clamp(prefs.rightWidth ?? d.rightWidth, ...LIMITS.rightWidth(v));
  // Keep the conversation usable: shrink the right column first, then the left.
  if (!narrow) {
    const room = v.width - MIN_CENTER;
    if (!rightRail && leftWidth + rightWidth > room) rightWidth = Math.max(180, room - leftWidth);
    if (!leftRail && leftWidth + rightWidth > room) leftWidth = Math.max(160, room - rightWidth);
  }
  // The first screen is the conversation's: the terminal starts collapsed whatever the window.
  const terminal = prefs.terminal ?? 'auto';
  const terminalOpen = terminal === 'open' || terminal === 'shown';
  return {
    narrow,
    leftWidth,
    rightWidth,
    viewerWidth: clamp(prefs.viewerWidth ?? d.viewerWidth, ...LIMITS.viewerWidth(v)),
    terminalHeight: clamp(prefs.terminalHeight ?? d.terminalHeight, ...LIMITS.terminalHeight(v)),
    leftSplit: clamp(prefs.leftSplit ?? d.leftSplit, ...LIMITS.split()),
    rightSplit: clamp(prefs.rightSplit ?? d.rightSplit, ...LIMITS.split()),
    collapsed,
    terminalOpen,
    leftRail,
    rightRail,
  };
}

/** The terminal after the agent started a command: it opens unless the person closed it (what the person chose stays). */
export function terminalOnAgentCommand(state: TerminalState | undefined): TerminalState {
  return state === 'closed' || state === 'open' ? state : 'shown';
}

/** The preferences as they are remembered: what the agent opened is not the person's choice. */
export function prefsToStore(prefs: LayoutPrefs): LayoutPrefs {
  if (prefs.terminal !== 'shown') return prefs;
  const stored = { ...prefs };
  delete stored.terminal;
  return stored;
}

const NUMBER_KEYS = ['leftWidth', 'rightWidth', 'viewerWidth', 'terminalHeight', 'leftSplit', 'rightSplit'] as const;

/** Preferences read back from storage; anything malformed is dropped, not trusted. */
export function parsePrefs(raw: string | null): LayoutPrefs {
  if (!raw) return { collapsed: {} };
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { collapsed: {} };
  }
  if (!data || typeof data !== 'object') return { collapsed: {} };
  const input = data as Record<string, unknown>;
  const prefs: LayoutPrefs = { collapsed: {} };
  for (const key of NUMBER_KEYS) {
    const value = input[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) prefs[key] = value;
  }
  const collapsed = input.collapsed;
  if (collapsed && typeof collapsed === 'object') {
    for (const panel of FOLDABLE_PANELS) if ((collapsed as Record<string, unknown>)[panel] === true) prefs.collapsed[panel] = true;
  }
  if (input.terminal === 'open' || input.terminal === 'closed' || input.terminal === 'auto') prefs.terminal = input.terminal;
  return prefs;
}
