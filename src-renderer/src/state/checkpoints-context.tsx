// The open thread's checkpoints (SPEC §8) for every component that needs them: the
// Changes region's files, restoring to before a user message, undoing the latest restore,
// reverting one file, and the prompt shown when the person changed files afterwards.

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { RestoreResult, ResolutionDto, ThreadChanges } from '../../../src-main/app/contract/checkpoints';
import { ConflictDialog, type ConflictPrompt } from '../components/ConflictDialog';
import { errorMessage, useToasts } from './toasts';
import { useApi } from './use-api';
import { useConnection, useEvent } from './transport-context';

export interface CheckpointsApi {
  threadId: string | null;
  changes: ThreadChanges | null;
  /** A run is going or a restore is under way: restoring now would race the agent. */
  busy: boolean;
  restoreToMessage(turn: number): void;
  undoRestore(): void;
  revertFile(path: string): void;
}

const CheckpointsContext = createContext<CheckpointsApi | null>(null);

export function useCheckpoints(): CheckpointsApi | null {
  return useContext(CheckpointsContext);
}

export function CheckpointsProvider({ threadId, running, children }: { threadId: string | null; running: boolean; children: ReactNode }): React.JSX.Element {
  const api = useApi();
  const { push } = useToasts();
  const { reconnects } = useConnection();
  const [changes, setChanges] = useState<ThreadChanges | null>(null);
  const [version, setVersion] = useState(0);
  const [working, setWorking] = useState(false);
  const [prompt, setPrompt] = useState<ConflictPrompt | null>(null);

  useEffect(() => {
    setChanges(null);
  }, [threadId]);

  useEffect(() => {
    if (threadId === null) return undefined;
    let cancelled = false;
    api
      .call('checkpoints.changes', { threadId })
      .then((c) => !cancelled && setChanges(c))
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [api, threadId, version, reconnects]);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  useEvent('thread.event', (payload) => {
    if (payload.threadId === threadId && (payload.event.type === 'checkpoint' || payload.event.type === 'done')) refresh();
  });
  useEvent('checkpoints.changed', (payload) => {
    if (payload.threadId === threadId) refresh();
  });

  /** Runs a restore-like call; with conflicts, asks the person and runs it again their way. */
  const perform = useCallback(
    (title: string, call: (resolution: ResolutionDto) => Promise<RestoreResult>) => {
      const attempt = async (resolution: ResolutionDto): Promise<void> => {
        setWorking(true);
        try {
          const result = await call(resolution);
          if (!result.applied) {
            const decide = (choice: 'keep-mine' | 'take-restore' | 'cancel'): void => {
              setPrompt(null);
              if (choice !== 'cancel') void attempt(choice);
            };
            setPrompt({ title, conflicts: result.conflicts, decide });
            return;
          }
          const skipped = result.skipped.length > 0 ? ` (${result.skipped.length} could not be restored: ${result.skipped.map((s) => s.path).join(', ')})` : '';
          push(`Restored ${result.restored} ${result.restored === 1 ? 'file' : 'files'}${skipped}`, 'info');
        } catch (err) {
          push(errorMessage(err));
        } finally {
          setWorking(false);
          refresh();
        }
      };
      void attempt('ask');
    },
    [push, refresh],
  );

  const value = useMemo<CheckpointsApi>(
    () => ({
      threadId,
      changes,
      busy: running || working,
      restoreToMessage: (turn) => {
        if (threadId) perform('Restore files to before this message', (resolution) => api.call('checkpoints.restoreToMessage', { threadId, turn, resolution }));
      },
      undoRestore: () => {
        const undo = changes?.undo;
        if (threadId && undo) perform('Undo restore', (resolution) => api.call('checkpoints.undoRestore', { threadId, checkpointId: undo.checkpointId, resolution }));
      },
      revertFile: (path) => {
        if (threadId) perform(`Revert ${path}`, (resolution) => api.call('checkpoints.revertFile', { threadId, path, resolution }));
      },
    }),
    [api, threadId, changes, running, working, perform],
  );

  return (
    <CheckpointsContext.Provider value={value}>
      {children}
      {prompt ? <ConflictDialog prompt={prompt} /> : null}
    </CheckpointsContext.Provider>
  );
}
