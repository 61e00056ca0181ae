// The folder's approval mode and sandbox status (mode.get), kept current by 'mode.changed'.

import { useCallback } from 'react';
import type { ApprovalModeDto, ModeState } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useEvent } from './transport-context';
import { useAskedValue } from './use-live-value';

export interface ModeApi {
  /** null until loaded. */
  state: ModeState | null;
  setMode(mode: ApprovalModeDto): Promise<void>;
  /** The "no sandbox here" notice was shown: not again for this folder. */
  noticeShown(): void;
  /** The offer of modes opened by itself (once per folder), or the person dismissed it (it goes away). */
  offer(event: 'shown' | 'dismissed'): void;
}

export function useMode(): ModeApi {
  const api = useApi();
  const [state, setState] = useAskedValue('mode.get');
  useEvent('mode.changed', setState);

  const setMode = useCallback(
    async (mode: ApprovalModeDto) => {
      const next = await api.safe('mode.set', { mode });
      if (next) setState(next);
    },
    [api],
  );
  const noticeShown = useCallback(() => void api.safe('mode.sandboxNoticeShown', {}), [api]);
  const offer = useCallback(
    (event: 'shown' | 'dismissed') => {
      // Shown as dismissed at once; the answer (and mode.changed) confirm it.
      if (event === 'dismissed') setState((s) => (s ? { ...s, offerShown: true, offerDismissed: true } : s));
      void api.safe('mode.offer', { event }).then((next) => {
        if (next) setState(next);
      });
    },
    [api],
  );
  return { state, setMode, noticeShown, offer };
}

export const MODE_LABELS: Record<ApprovalModeDto, { title: string; detail: string }> = {
  ask: { title: 'Ask', detail: 'Reads run; file changes and commands ask first (commands your rules allow run in the sandbox).' },
  edit: { title: 'Edit', detail: 'File changes in this folder run without asking (protected files still ask); commands ask.' },
  auto: { title: 'Auto', detail: 'File changes and commands run without asking, commands inside the sandbox; anything leaving it asks.' },
  plan: { title: 'Plan', detail: 'Read-only: the agent looks and plans; changes and commands are refused until you switch.' },
};
