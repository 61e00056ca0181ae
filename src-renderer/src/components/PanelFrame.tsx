// Wraps a panel (a region with a `.panel-head`) with a collapse button over its head.
// The panel stays mounted when collapsed (only its head shows), so its state and, for the
// terminal, its pty view survive.

import type { CSSProperties, ReactNode } from 'react';
import { Icon } from './Icon';

interface PanelFrameProps {
  name: string;
  collapsed: boolean;
  onToggle(): void;
  className?: string;
  style?: CSSProperties;
  /** Shown on the collapse button's tooltip, e.g. a keyboard shortcut. */
  hint?: string;
  keyShortcuts?: string;
  children: ReactNode;
}

export function PanelFrame({ name, collapsed, onToggle, className, style, hint, keyShortcuts, children }: PanelFrameProps): React.JSX.Element {
  return (
    <div className={`panel-frame${collapsed ? ' collapsed' : ''}${className ? ` ${className}` : ''}`} style={style} data-panel={name} data-region={name}>
      <button
        type="button"
        className="panel-toggle"
        aria-expanded={!collapsed}
        aria-label={`${collapsed ? 'Expand' : 'Collapse'} ${name}`}
        aria-keyshortcuts={keyShortcuts}
        title={`${collapsed ? 'Expand' : 'Collapse'} ${name}${hint ? ` (${hint})` : ''}`}
        onClick={onToggle}
      >
        <Icon name={collapsed ? 'chevronRight' : 'chevronDown'} size={14} />
      </button>
      {children}
    </div>
  );
}
