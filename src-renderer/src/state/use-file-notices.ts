// Notices about the app's own files (a settings, keys or modes file kept aside, values in it
// ignored): each shown once as a toast that stays until dismissed. Those from before this
// window connected come from app.notices; later ones arrive as 'app.notice'.

import { useEffect, useRef } from 'react';
import type { NoticeDto } from '../../../src-main/app/contract';
import { useToasts } from './toasts';
import { useConnection, useEvent, useTransport } from './transport-context';

export function useFileNotices(): void {
  const transport = useTransport();
  const { reconnects } = useConnection();
  const { push } = useToasts();
  const seen = useRef(new Set<string>());

  const show = (notice: NoticeDto): void => {
    if (seen.current.has(notice.id)) return;
    seen.current.add(notice.id);
    push(notice.message, 'error', { sticky: true });
  };
  const showRef = useRef(show);
  useEffect(() => {
    showRef.current = show;
  });

  useEvent('app.notice', show);

  useEffect(() => {
    let cancelled = false;
    transport
      .call('app.notices', {})
      .then((list) => {
        if (!cancelled) for (const notice of list) showRef.current(notice);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [transport, reconnects]);
}

/** For the app root: renders nothing. */
export function FileNotices(): null {
  useFileNotices();
  return null;
}
