// The panels' state: the layout (folded, sized, the terminal as a bottom panel), the switcher's
// drawer on narrow windows, the file in the viewer (a tree row's, a path's, an attachment's).

import { useCallback, useEffect, useRef, useState } from 'react';
import { attachmentContent } from '../../lib/attachment-content';
import type { FileChange } from '../../lib/file-tree';
import { focusMessageBox, stillFocusable } from '../../lib/focus';
import type { SidePanel } from '../../lib/layout';
import type { ShownAttachment } from '../../lib/thread-reducer';
import { errorMessage } from '../../state/toasts';
import { useApi } from '../../state/use-api';
import { useLayout } from '../../state/use-layout';
import type { ThreadSession } from '../../state/use-thread-session';
import type { OpenFile } from '../FileViewer';

type Drawer = SidePanel | 'viewer' | null;
export type SidePanels = ReturnType<typeof useSidePanels>;

export function useSidePanels(attachment: ThreadSession['attachment']) {
  const api = useApi();
  const [openFile, setOpenFile] = useState<OpenFile | null>(null);
  const [drawer, setDrawer] = useState<Drawer>(null);
  const controls = useLayout(openFile !== null);
  const { layout, setTerminal } = controls;
  const narrow = layout.narrow;

  /** Shows what reading `path` gave, if the viewer still shows `path`. */
  const settle = useCallback((path: string, read: Promise<OpenFile['content']>) => {
    read
      .then((content) => setOpenFile((f) => (f?.path === path ? { path, content } : f)))
      .catch((err: unknown) => setOpenFile((f) => (f?.path === path ? { path, error: errorMessage(err) } : f)));
  }, []);
  /** What opened the file viewer (a tree row, a path in the conversation): it has the keyboard back on close. */
  const viewerOpener = useRef<HTMLElement | null>(null);
  const show = useCallback((path: string, read: Promise<OpenFile['content']>) => {
    if (document.activeElement instanceof HTMLElement && !document.activeElement.closest('.viewer-panel')) viewerOpener.current = document.activeElement;
    setOpenFile({ path });
    if (narrow) setDrawer('viewer');
    settle(path, read);
  }, [narrow, settle]);
  const openPath = useCallback((path: string) => show(path, api.call('files.read', { path })), [show, api]);
  /** An attachment of a sent message, from the bytes the window kept or the thread's. */
  const openAttachment = useCallback((file: ShownAttachment) => {
    const path = file.path ?? file.name;
    const bytes =
      file.data !== undefined
        ? Promise.resolve({ mimeType: file.mimeType, data: file.data })
        : file.index !== undefined
          ? attachment(file.index, file.name)
          : Promise.reject(new Error('this attachment opens once its message is saved'));
    show(path, bytes.then(({ mimeType, data }) => attachmentContent(path, mimeType, data)));
  }, [attachment, show]);
  const onFileChanges = useCallback((changes: readonly FileChange[]) => {
    setOpenFile((f) => {
      const change = f && changes.find((c) => c.path === f.path);
      if (!f || !change) return f;
      if (change.kind === 'unlink') return { ...f, deleted: true };
      settle(f.path, api.call('files.read', { path: f.path }));
      return { ...f, deleted: false };
    });
  }, [api, settle]);

  const closeFile = (): void => {
    const path = openFile?.path;
    setOpenFile(null);
    if (drawer === 'viewer') setDrawer(null);
    const opener = stillFocusable(viewerOpener.current) ?? (path === undefined ? null : stillFocusable(document.querySelector(`[role="treeitem"][data-key="${CSS.escape(path)}"]`)));
    viewerOpener.current = null;
    if (opener) opener.focus();
    else focusMessageBox();
  };

  /** The terminal's bottom panel. */
  const terminalRef = useRef<HTMLDivElement>(null);
  const toggleTerminal = useCallback((open?: boolean) => setTerminal((old) => {
    const isOpen = old === 'open' || (old !== 'closed' && layout.terminalOpen);
    return (open ?? !isOpen) ? 'open' : 'closed';
  }), [setTerminal, layout.terminalOpen]);

  useEffect(() => {
    if (!narrow) setDrawer(null);
  }, [narrow]);
  // A drawer that closes (Esc, the scrim, a thread chosen in it) gives the keyboard back to
  // the switcher's button that opened it, if the keyboard was in it.
  const lastDrawer = useRef<Drawer>(null);
  useEffect(() => {
    const closed = lastDrawer.current;
    lastDrawer.current = drawer;
    if (closed === null || drawer !== null) return;
    const active = document.activeElement;
    if (active !== null && active !== document.body && active.getClientRects().length > 0) return;
    const opener = closed === 'viewer' ? null : document.querySelector<HTMLElement>(`.switcher button[aria-label="Show ${closed}"]`);
    if (opener) opener.focus();
    else focusMessageBox();
  }, [drawer]);

  return { ...controls, narrow, drawer, setDrawer, openFile, openPath, openAttachment, onFileChanges, closeFile, terminalRef, toggleTerminal };
}
