// The open thread's checkpoints (SPEC §8) for every component that needs them: the
// Changes region's files, restoring to before a user message (files only, or files and
// conversation, whose message then goes back into the message box), undoing the latest
// restore, reverting one file, and the prompt shown when the person changed files afterwards.

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { RestoreResult, ResolutionDto, RewindResult, ThreadChanges } from '../../../src-main/app/contract/checkpoints';
import { ConflictDialog, type ConflictPrompt } from '../components/ConflictDialog';
import { errorMessage, useToasts } from './toasts';
import { useApi } from './use-api';
import { whileCurrent } from '../lib/while-current';
import { useConnection, useEvent } from './transport-context';

export interface CheckpointsApi {
  threadId: string | null;
  changes: ThreadChanges | null;
  /** A run is going or a restore is under way: restoring now would race the agent. */
  busy: boolean;
  restoreToMessage(turn: number): void;
  /** Restores the files and rewinds the conversation to before this message (its text goes back into the message box). */
  rewindToMessage(turn: number): void;
  undoRestore(): void;
  revertFile(path: string): void;
  /** Puts back one hunk; asked while a run goes, it waits for the agent's step to end. */
  revertHunk(path: string, hunkId: string): void;
  /** Sets a hunk's Reviewed mark (Keep sets it). */
  markReviewed(hunkId: string, reviewed: boolean): void;
  /** A restore or revert is under way (a hunk's revert may wait for the agent's step). */
  working: boolean;
  /** Text for the message box after a rewind (`key` tells one refill from the next). */
  refill: { text: string; key: number } | null;
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
  const [refill, setRefill] = useState<{ text: string; key: number } | null>(null);

  useEffect(() => {
    setChanges(null);
    setRefill(null);
  }, [threadId]);

  useEffect(() => {
    if (threadId === null) return undefined;
    return whileCurrent(api.call('checkpoints.changes', { threadId }), setChanges);
  }, [api, threadId, version, reconnects]);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  useEvent('thread.event', (payload) => {
    if (payload.threadId === threadId && (payload.event.type === 'checkpoint' || payload.event.type === 'done')) refresh();
  });
  useEvent('checkpoints.changed', (payload) => {
    if (payload.threadId === threadId) refresh();
  });

  /** Runs a restore-like call; with conflicts, asks the person and runs it again their way. `done`: after it applied. */
  const perform = useCallback(
    <R extends RestoreResult>(title: string, call: (resolution: ResolutionDto) => Promise<R>, done?: (result: R) => void) => {
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
          if (result.restored === 0 && result.skipped.length + result.conflicts.length > 0) {
            // Nothing changed (the lines were changed since, or the person kept theirs): say so, and why.
            push(`Nothing was changed. ${[...result.skipped, ...result.conflicts].map((s) => `${s.path}: ${s.reason}`).join('; ')}`, 'error');
            return;
          }
          const skipped = result.skipped.length > 0 ? ` (${result.skipped.length} could not be restored: ${result.skipped.map((s) => s.path).join(', ')})` : '';
          const withConversation = ('rewound' in result && result.rewound === true) || result.conversationRestored === true;
          const conversation = withConversation ? ' and the conversation' : result.conversationRestored === false ? ' (the conversation has gone on since: it stays as it is)' : '';
          push(`Restored ${result.restored} ${result.restored === 1 ? 'file' : 'files'}${conversation}${skipped}`, 'info');
          done?.(result);
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
      rewindToMessage: (turn) => {
        if (!threadId) return;
        const call = (resolution: ResolutionDto): Promise<RewindResult> => api.call('checkpoints.rewindToMessage', { threadId, turn, resolution });
        perform('Restore files and conversation to before this message', call, (result) => {
          if (result.rewound && result.text !== undefined) setRefill((old) => ({ text: result.text!, key: (old?.key ?? 0) + 1 }));
        });
      },
      revertFile: (path) => {
        if (threadId) perform(`Revert ${path}`, (resolution) => api.call('checkpoints.revertFile', { threadId, path, resolution }));
      },
      revertHunk: (path, hunkId) => {
        if (threadId) perform(`Revert a change to ${path}`, (resolution) => api.call('checkpoints.revertHunk', { threadId, path, hunkId, resolution }));
      },
      markReviewed: (hunkId, reviewed) => {
        if (threadId) api.call('checkpoints.markReviewed', { threadId, hunkId, reviewed }).then(refresh, (err: unknown) => push(errorMessage(err)));
      },
      working,
      refill,
    }),
    [api, threadId, changes, running, working, perform, refresh, push, refill],
  );

  return (
    <CheckpointsContext.Provider value={value}>
      {children}
      {prompt ? <ConflictDialog prompt={prompt} /> : null}
    </CheckpointsContext.Provider>
  );
}
