// The open folder's worktree (worktrees.info; null when the folder is not one), kept current by
// `worktrees.changed` and, a little after, by what changes its diff against its base: a
// thread's step that changed files or its run's end (told by the run itself, so the agent's
// work shows even when the folder's watcher missed a change), and the folder's own file
// changes (the person's edits, a terminal's commands). The workspace is made anew for another
// folder, so this hook starts again with it.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { WorktreeInfoDto } from '../../../src-main/app/contract';
import { useApi } from './use-api';
import { useConnection, useEvent } from './transport-context';

/** A burst of file changes (a run writing files, a checkout) asks once. */
const FILES_SETTLE_MS = 600;

export interface WorktreeState {
  /** undefined while first asked; null when the open folder is not a worktree. */
  info: WorktreeInfoDto | null | undefined;
  refresh(): void;
}

export function useWorktree(): WorktreeState {
  const api = useApi();
  const { reconnects } = useConnection();
  const [info, setInfo] = useState<WorktreeInfoDto | null | undefined>(undefined);
  // Only the latest question's answer counts.
  const asked = useRef(0);
  const isWorktree = useRef(false);

  const refresh = useCallback(() => {
    const id = ++asked.current;
    api
      .call('worktrees.info', {})
      .then((next) => {
        if (id !== asked.current) return;
        isWorktree.current = next !== null;
        setInfo(next);
      })
      .catch(() => {
        // Gone or unreadable (e.g. just removed): the bar keeps what it showed until the next answer.
        if (id === asked.current && !isWorktree.current) setInfo(null);
      });
  }, [api]);

  useEffect(() => {
    refresh();
    return () => {
      asked.current++;
    };
  }, [refresh, reconnects]);

  useEvent('worktrees.changed', refresh);

  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refreshSoon = useCallback(() => {
    if (!isWorktree.current || timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      refresh();
    }, FILES_SETTLE_MS);
  }, [refresh]);
  useEvent('files.changed', refreshSoon);
  useEvent('thread.event', ({ event }) => {
    if (event.type === 'checkpoint' || event.type === 'done') refreshSoon();
  });
  useEffect(() => () => clearTimeout(timer.current), []);

  return { info, refresh };
}
