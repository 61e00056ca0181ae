// What every conversation item may need, without threading it through each level.

import { createContext, useContext } from 'react';
import type { Todo } from '../lib/agent-event';

export interface ConversationContextValue {
  running: boolean;
  subTodos: Readonly<Record<string, Todo[]>>;
  /** Tool call ids waiting for the person's decision. */
  pendingApprovals: ReadonlySet<string>;
  /** Opens a thread file (/large_tool_results/…, /conversation_history/…) in the text viewer. */
  openThreadFile(path: string, title: string): void;
}

export const ConversationContext = createContext<ConversationContextValue>({
  running: false,
  subTodos: {},
  pendingApprovals: new Set(),
  openThreadFile: () => undefined,
});

export function useConversation(): ConversationContextValue {
  return useContext(ConversationContext);
}
