// Where a thread came from when not the window (SPEC §19, §16): said in the thread list, the
// thread's header and as the author of its person messages, so that work sent from another
// tool is never shown as the person's own.

import { createContext, useContext } from 'react';
import type { ThreadSummaryDto } from '../../../src-main/app/contract';

export type ThreadSource = NonNullable<ThreadSummaryDto['source']>;

/** The source in a few words: `Agent Protocol · node`, `deepdesk run`, `an editor (ACP)`. */
export function sourceLabel(source: ThreadSource): string {
  if (source.kind === 'protocol') return `Agent Protocol${source.client !== undefined ? ` · ${source.client}` : ''}`;
  return source.kind === 'run' ? 'deepdesk run' : 'an editor (ACP)';
}

/** Who wrote a thread's person messages: the protocol client, else "You" (with where, from a terminal or an editor). */
export function authorLabel(source: ThreadSource | undefined): string {
  if (source === undefined) return 'You';
  if (source.kind === 'protocol') return `${source.client ?? 'A client'} (Agent Protocol)`;
  return source.kind === 'run' ? 'You (deepdesk run)' : 'You (editor)';
}

/** The shown thread's source, for its messages. */
export const ThreadSourceContext = createContext<ThreadSource | undefined>(undefined);

export function useThreadSource(): ThreadSource | undefined {
  return useContext(ThreadSourceContext);
}
