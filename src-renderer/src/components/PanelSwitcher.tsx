// On narrow windows the side panels fold into this rail: one button per panel, showing
// that panel over the conversation (Esc or the same button closes it).

import { SIDE_PANELS, type SidePanel } from '../lib/layout';
import { Icon, type IconName } from './Icon';

const ICONS: Record<SidePanel, IconName> = { Threads: 'chat', Files: 'folder', Memories: 'brain', Changes: 'pencil' };

export function PanelSwitcher({ current, onSelect }: { current: SidePanel | null; onSelect(panel: SidePanel): void }): React.JSX.Element {
  return (
    <nav className="switcher" aria-label="Panels">
      {SIDE_PANELS.map((panel) => (
        <button
          key={panel}
          type="button"
          className={`switcher-btn${current === panel ? ' active' : ''}`}
          aria-pressed={current === panel}
          aria-label={`Show ${panel}`}
          title={panel}
          onClick={() => onSelect(panel)}
        >
          <Icon name={ICONS[panel]} size={17} />
          <span className="switcher-label" aria-hidden="true">{panel}</span>
        </button>
      ))}
    </nav>
  );
}
