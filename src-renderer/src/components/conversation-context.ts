// What every conversation item may need, without threading it through each level.

import { createContext, useCallback, useContext, useState } from 'react';
import type { ApprovalDecisionDto, PendingApproval, Result } from '../../../src-main/app/contract';
import type { Todo } from '../lib/agent-event';
import type { ShownAttachment } from '../lib/thread-reducer';
import type { MemoriesUsedByTurn } from '../state/use-memories-used';

export interface DecidedPreview {
  path: string;
  before: string;
  after: string;
}

export interface ConversationContextValue {
  running: boolean;
  subTodos: Readonly<Record<string, Todo[]>>;
  /** Tool call ids waiting for the person's decision, with the request. */
  pendingApprovals: ReadonlyMap<string, PendingApproval>;
  /** The waiting approvals, oldest first (for "2 of 3"). */
  approvalOrder: readonly string[];
  /** The approval that may take focus when it appears. */
  focusApproval: string | null;
  decide(approval: PendingApproval, decision: ApprovalDecisionDto): Promise<boolean>;
  /** The diff a write or edit showed when it was approved, by call id. */
  decidedPreviews: ReadonlyMap<string, DecidedPreview>;
  /** Opens a thread file (/large_tool_results/…, /conversation_history/…) in the text viewer. */
  openThreadFile(path: string, title: string): void;
  /** Opens the Settings dialog (an error whose fix is there offers it), at the section of this label if given. */
  openSettings?(section?: string): void;
  /** One tool call of the thread in full (its card was loaded cut; `index`: its message index). */
  fullToolCall?(index: number, toolCallId: string, parentToolCallId?: string): Promise<Result<'threads.toolCall'>>;
  /** The bytes of an attachment of the person's message at `index` (a sent image's thumbnail). */
  attachment?(index: number, name: string): Promise<Result<'threads.attachment'>>;
  /** Opens an attachment of a sent message in the file viewer. */
  openAttachment?(file: ShownAttachment): void;
  /** The memories each turn's model requests held, by turn from 1 (SPEC §25). */
  memoriesUsed?: MemoriesUsedByTurn;
  /** What the person opened or folded in the rows, by key (useKeptOpen). */
  opened?: Map<string, boolean>;
}

export const ConversationContext = createContext<ConversationContextValue>({
  running: false,
  subTodos: {},
  pendingApprovals: new Map(),
  approvalOrder: [],
  focusApproval: null,
  decide: () => Promise.resolve(false),
  decidedPreviews: new Map(),
  openThreadFile: () => undefined,
});

export function useConversation(): ConversationContextValue {
  return useContext(ConversationContext);
}

/**
 * A row's open or folded part, kept by the conversation under `key` (an item's key): a row of
 * a long thread leaves the page when far from the view and comes back as the person left it.
 */
export function useKeptOpen(key: string, initial = false): [boolean, (open: boolean) => void] {
  const { opened } = useConversation();
  const [open, setOpen] = useState(() => opened?.get(key) ?? initial);
  const set = useCallback(
    (next: boolean) => {
      opened?.set(key, next);
      setOpen(next);
    },
    [opened, key],
  );
  return [open, set];
}
