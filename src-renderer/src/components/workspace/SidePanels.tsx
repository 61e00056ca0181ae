// The columns beside the conversation and the edges that size them: the Agents view, Threads and
// Files; the file viewer, Memories and Changes. On narrow windows each panel is a switcher's drawer.

import { useMemo, useRef } from 'react';
import { agentChangedPaths } from '../../lib/file-tree';
import { LEFT_PANELS, LIMITS, RIGHT_PANELS, type SidePanel } from '../../lib/layout';
import type { ThreadSession } from '../../state/use-thread-session';
import { AgentsPanel } from '../AgentsPanel';
import { ChangesPanel } from '../ChangesPanel';
import { ErrorBoundary } from '../ErrorBoundary';
import { FileTree } from '../FileTree';
import { FileViewer } from '../FileViewer';
import { MemoriesPanel } from '../MemoriesPanel';
import { PanelFrame } from '../PanelFrame';
import { PanelSwitcher } from '../PanelSwitcher';
import { Resizer } from '../Resizer';
import { ThreadList } from '../ThreadList';
import type { OpenThread } from './use-open-thread';
import type { SidePanels } from './use-side-panels';

type Size = Parameters<SidePanels['setSize']>[0];

/** The edge that sets one of the layout's sizes, in px; or with `column` (which measures its height) a column's split. */
export function SizeResizer(props: { panels: SidePanels; label: string; size: Size; value?: number; direction?: -1; column?(): number }): React.JSX.Element {
  const { panels, label, size, value = panels.layout[size], direction, column } = props;
  const px = column?.() ?? 1;
  const [min, max] = column ? LIMITS.split() : LIMITS[size as Exclude<Size, `${string}Split`>](panels.viewport);
  return <Resizer label={label} orientation={size.endsWith('Width') ? 'vertical' : 'horizontal'} direction={direction} value={value * px} min={min * px} max={max * px} onChange={(v) => panels.setSize(size, v / (column?.() ?? 1))} onReset={() => panels.setSize(size, undefined)} />;
}

/** A side panel's frame; `share`: of the column, as a flex grow factor; or the frame's whole `flex`. */
function Panel({ panels, name, share, children }: { panels: SidePanels; name: SidePanel; share: number | string | null; children: React.ReactNode }): React.JSX.Element {
  const { layout, narrow } = panels;
  const collapsed = !narrow && layout.collapsed[name];
  const style = narrow || collapsed || share === null ? {} : { flex: typeof share === 'string' ? share : `${share} 1 0` };
  return (
    <PanelFrame name={name} collapsed={collapsed} onToggle={() => panels.togglePanel(name)} className={narrow && panels.drawer !== name ? 'drawer-hidden' : ''} style={style}>
      <ErrorBoundary name={name}>{children}</ErrorBoundary>
    </PanelFrame>
  );
}

/** The height of a column (`aside`), before it is drawn: the window's below the header. */
function useColumn(panels: SidePanels): [React.RefObject<HTMLElement | null>, () => number] {
  const ref = useRef<HTMLElement>(null);
  return [ref, () => ref.current?.clientHeight ?? panels.viewport.height - 46];
}

function asideClass(side: string, panels: SidePanels, rail: boolean, drawerOpen: boolean, viewer = ''): string {
  return `side side-${side}${rail && !panels.narrow ? ' rail' : ''}${viewer}${panels.narrow ? (drawerOpen ? ' drawer open' : ' drawer') : ''}`;
}

export function LeftPanels({ panels, thread, session, folderName }: { panels: SidePanels; thread: OpenThread; session: ThreadSession; folderName: string }): React.JSX.Element {
  const { layout, narrow, drawer, setDrawer } = panels;
  const [ref, column] = useColumn(panels);
  const both = LEFT_PANELS.every((p) => !layout.collapsed[p]);
  const changedPaths = useMemo(() => agentChangedPaths(session.state.items), [session.state.items]);
  return (
    <>
      {narrow ? <PanelSwitcher current={drawer === 'viewer' ? null : drawer} onSelect={(p) => setDrawer((d) => (d === p ? null : p))} /> : null}
      <aside ref={ref} aria-label="Threads and files" className={asideClass('left', panels, layout.leftRail, drawer === 'Threads' || drawer === 'Files')} style={narrow ? undefined : { width: layout.leftWidth }}>
        <PanelFrame
          name="Agents"
          collapsed={!narrow && layout.collapsed.Agents}
          onToggle={() => panels.togglePanel('Agents')}
          className={`agents-frame${narrow && drawer !== 'Threads' ? ' drawer-hidden' : ''}`}
          // With Threads and Files folded, it takes the column.
          style={!narrow && !layout.collapsed.Agents && LEFT_PANELS.every((p) => layout.collapsed[p]) ? { flex: '1 1 0', maxHeight: 'none' } : undefined}
        >
          <ErrorBoundary name="Agents">
            <AgentsPanel currentId={session.threadId} />
          </ErrorBoundary>
        </PanelFrame>
        {/* Threads keeps its share of the whole column: the Agents view's rows take their room from Files. */}
        <Panel panels={panels} name="Threads" share={both ? `0 1 ${layout.leftSplit * 100}%` : '1 1 0'}>
          <ThreadList threads={thread.threads} currentId={session.threadId} currentRunning={session.state.running} onSelect={thread.openThread} onNew={() => void thread.newThread()} />
        </Panel>
        {!narrow && both ? <SizeResizer panels={panels} label="Resize Threads and Files" size="leftSplit" column={column} /> : null}
        <Panel panels={panels} name="Files" share="1 1 0">
          <FileTree folderName={folderName} selectedPath={panels.openFile?.path ?? null} onOpenFile={panels.openPath} onChanges={panels.onFileChanges} changedPaths={changedPaths} />
        </Panel>
      </aside>
      {!narrow && !layout.leftRail ? <SizeResizer panels={panels} label="Resize left panels" size="leftWidth" /> : null}
    </>
  );
}

export function RightPanels({ panels }: { panels: SidePanels }): React.JSX.Element {
  const { layout, narrow, drawer, setDrawer, openFile } = panels;
  const [ref, column] = useColumn(panels);
  const both = RIGHT_PANELS.every((p) => !layout.collapsed[p]);
  const drawerOpen = drawer === 'Memories' || drawer === 'Changes' || drawer === 'viewer';
  return (
    <>
      {!narrow && !layout.rightRail ? <SizeResizer panels={panels} label="Resize right panels" size={openFile ? 'viewerWidth' : 'rightWidth'} value={layout.rightWidth} direction={-1} /> : null}
      <aside ref={ref} aria-label="Memories and changes" className={asideClass('right', panels, layout.rightRail, drawerOpen, openFile ? ' with-viewer' : '')} style={narrow ? undefined : { width: layout.rightWidth }}>
        {openFile !== null && (!narrow || drawer === 'viewer') ? (
          <ErrorBoundary name="File viewer">
            <FileViewer file={openFile} onClose={panels.closeFile} />
          </ErrorBoundary>
        ) : null}
        <Panel panels={panels} name="Memories" share={openFile ? null : layout.rightSplit}>
          <MemoriesPanel />
        </Panel>
        {!narrow && both && !openFile ? <SizeResizer panels={panels} label="Resize Memories and Changes" size="rightSplit" column={column} /> : null}
        <Panel panels={panels} name="Changes" share={openFile ? null : 1 - layout.rightSplit}>
          <ChangesPanel />
        </Panel>
      </aside>
      {narrow && drawer !== null ? <div className="drawer-scrim" aria-hidden="true" onClick={() => setDrawer(null)} /> : null}
    </>
  );
}
