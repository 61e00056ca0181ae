// Notices for the person (about their files, or the open folder). Those from before this
// window connected come from app.notices; later ones arrive as 'app.notice'. Each is shown
// once, also across reloads (the ids seen are remembered in localStorage): one that needs an
// answer counts as seen once dismissed, any other once shown. A folder's notices leave when
// another folder opens.

import { useEffect, useRef } from 'react';
import type { AppInfo, NoticeDto } from '../../../src-main/app/contract';
import { useToasts } from './toasts';
import { whileCurrent } from '../lib/while-current';
import { useConnection, useEvent, useTransport } from './transport-context';

const SEEN_KEY = 'deepdesk.noticesSeen';
const SEEN_KEPT = 200;

function seenIds(): string[] {
  try {
    const stored: unknown = JSON.parse(window.localStorage.getItem(SEEN_KEY) ?? '[]');
    return Array.isArray(stored) ? stored.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

function rememberSeen(id: string): void {
  try {
    window.localStorage.setItem(SEEN_KEY, JSON.stringify([...seenIds().filter((seen) => seen !== id), id].slice(-SEEN_KEPT)));
  } catch {
    // Storage full or refused: the notice may show again after a reload, nothing worse.
  }
}

export function useFileNotices(): void {
  const transport = useTransport();
  const { reconnects } = useConnection();
  const { push, keepFolder } = useToasts();
  /** Shown in this page (a sticky one not yet dismissed is not in localStorage yet). */
  const shown = useRef(new Set<string>());

  const show = (notice: NoticeDto): void => {
    if (shown.current.has(notice.id) || seenIds().includes(notice.id)) return;
    shown.current.add(notice.id);
    const needsAnswer = notice.needsAnswer === true;
    if (!needsAnswer) rememberSeen(notice.id);
    push(notice.message, notice.kind ?? 'error', {
      sticky: needsAnswer,
      ...(notice.folder !== undefined ? { folder: notice.folder } : {}),
      ...(needsAnswer ? { onClose: () => rememberSeen(notice.id) } : {}),
    });
  };
  const showRef = useRef(show);
  useEffect(() => {
    showRef.current = show;
  });

  useEvent('app.notice', show);
  useEvent('app.folderChanged', (info: AppInfo) => {
    if (info.folder !== null) keepFolder(info.folder);
  });

  useEffect(
    () =>
      whileCurrent(transport.call('app.notices', {}), (list) => {
        for (const notice of list) showRef.current(notice);
      }),
    [transport, reconnects],
  );
}

/** For the app root: renders nothing. */
export function FileNotices(): null {
  useFileNotices();
  return null;
}
