// The thread list's search (titles here, messages by the server) and date groups (Today, Yesterday, Previous 7 days, Previous 30
// days, then by month), newest first.

import type { ThreadSummaryDto } from '../../../src-main/app/contract';

export interface ThreadGroup {
  label: string;
  threads: ThreadSummaryDto[];
}

/** Threads whose title (and, for one from a removed worktree, its branch) contains every word of the query, case-insensitively. */
export function filterThreads(threads: readonly ThreadSummaryDto[], query: string): ThreadSummaryDto[] {
  const words = query.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...threads];
  return threads.filter((t) => {
    const title = `${t.title || 'Untitled thread'} ${t.removedWorktree?.branch ?? ''}`.toLocaleLowerCase();
    return words.every((w) => title.includes(w));
  });
}

/** What the folder's messages say about a search (threads.search), for the query it answered. */
export interface MessageMatches {
  query: string;
  /** Thread id → a bit of its first matching message. */
  snippets: ReadonlyMap<string, string>;
}

/**
 * Threads whose title matches the query (filterThreads) or whose messages do (the server's
 * answer, when it is for this query), in the list's order; `snippets` for the ones found by
 * their messages, to show what matched.
 */
export function searchThreads(
  threads: readonly ThreadSummaryDto[],
  query: string,
  messages: MessageMatches | null,
): { threads: ThreadSummaryDto[]; snippets: ReadonlyMap<string, string> } {
  const byTitle = new Set(filterThreads(threads, query).map((t) => t.id));
  const answer = messages !== null && messages.query === query.trim() ? messages.snippets : new Map<string, string>();
  if (query.trim() === '') return { threads: [...threads], snippets: new Map() };
  const snippets = new Map<string, string>();
  const found = threads.filter((t) => {
    if (byTitle.has(t.id)) return true;
    const snippet = answer.get(t.id);
    if (snippet === undefined) return false;
    snippets.set(t.id, snippet);
    return true;
  });
  return { threads: found, snippets };
}

function startOfDay(t: number): number {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

const DAY = 86_400_000;

export function groupThreads(threads: readonly ThreadSummaryDto[], now: number = Date.now()): ThreadGroup[] {
  const today = startOfDay(now);
  const groups = new Map<string, ThreadSummaryDto[]>();
  const sorted = [...threads].sort((a, b) => Date.parse(b.updatedAt || b.createdAt) - Date.parse(a.updatedAt || a.createdAt));
  for (const thread of sorted) {
    const t = Date.parse(thread.updatedAt || thread.createdAt);
    const label = Number.isNaN(t)
      ? 'Older'
      : t >= today
        ? 'Today'
        : t >= today - DAY
          ? 'Yesterday'
          : t >= today - 7 * DAY
            ? 'Previous 7 days'
            : t >= today - 30 * DAY
              ? 'Previous 30 days'
              : new Date(t).toLocaleDateString('en-US', { month: 'long', year: 'numeric' });
    const list = groups.get(label);
    if (list) list.push(thread);
    else groups.set(label, [thread]);
  }
  return [...groups].map(([label, list]) => ({ label, threads: list }));
}
