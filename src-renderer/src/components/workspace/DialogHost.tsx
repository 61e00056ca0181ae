// What comes over the window or in the conversation's place: Settings (at a section asked for),
// a thread file's text, the Usage view (and the keyboard's way back when it closes), the toasts.

import { useCallback, useEffect, useRef, useState } from 'react';
import { focusMessageBox } from '../../lib/focus';
import { errorMessage } from '../../state/toasts';
import { useApi } from '../../state/use-api';
import { ErrorBoundary } from '../ErrorBoundary';
import { SettingsDialog } from '../SettingsDialog';
import { TextViewerDialog, type TextViewerContent } from '../TextViewerDialog';
import { Toasts } from '../Toasts';

export type Dialogs = ReturnType<typeof useDialogs>;

export function useDialogs(threadId: string | null) {
  const api = useApi();
  /** Settings when open, with the section it opens at (a label) when something asked for one. */
  const [settings, setSettings] = useState<{ section: string | undefined } | null>(null);
  const openSettings = useCallback((section?: string) => setSettings({ section: typeof section === 'string' ? section : undefined }), []);
  /** The Usage view in the conversation's place; where the keyboard goes when it closes. */
  const [usageShown, setUsageShown] = useState(false);
  const afterUsage = useRef<'opener' | 'message' | null>(null);
  const closeUsage = useCallback((focus: 'opener' | 'message' | null) => {
    afterUsage.current = focus;
    setUsageShown(false);
  }, []);
  useEffect(() => {
    if (usageShown || afterUsage.current === null) return;
    const focus = afterUsage.current;
    afterUsage.current = null;
    if (focus === 'opener') document.querySelector<HTMLElement>('.header-usage')?.focus();
    else focusMessageBox();
  }, [usageShown]);
  const [viewer, setViewer] = useState<TextViewerContent | null>(null);
  const openThreadFile = useCallback((path: string, title: string) => {
    if (threadId === null) return;
    setViewer({ title, path });
    api
      .call('threads.readArchive', { threadId, path })
      .then(({ text }) => setViewer((v) => (v?.path === path ? { ...v, text } : v)))
      .catch((err: unknown) => setViewer((v) => (v?.path === path ? { ...v, error: errorMessage(err) } : v)));
  }, [api, threadId]);
  const toggleUsage = (): void => (usageShown ? closeUsage(null) : setUsageShown(true));
  return { settings, setSettings, openSettings, usageShown, toggleUsage, closeUsage, viewer, setViewer, openThreadFile };
}

export function DialogHost({ dialogs, folder }: { dialogs: Dialogs; folder: string }): React.JSX.Element {
  const { settings, viewer } = dialogs;
  return (
    <>
      <ErrorBoundary name="Settings">{settings ? <SettingsDialog onClose={() => dialogs.setSettings(null)} section={settings.section} folder={folder} /> : null}</ErrorBoundary>
      <ErrorBoundary name="Viewer">{viewer ? <TextViewerDialog content={viewer} onClose={() => dialogs.setViewer(null)} /> : null}</ErrorBoundary>
      <Toasts />
    </>
  );
}
