// What the panel says of a memory beyond its text (SPEC §25): who wrote it and in which thread
// (a link that opens it), when it changed, when and in how many turns it was last used, and
// what it names that the project no longer has.

import type { MemoryEntry } from '../../../src-main/app/contract';
import { formatRelativeTime } from '../lib/format';
import { useMemoriesNav } from '../state/memories-nav';
import { VisibleText } from './VisibleText';

/** Thread titles of the open folder, by id. */
export type ThreadTitles = ReadonlyMap<string, string>;

/** The thread that wrote the memory's last version (the store's author for a memory kept before versions). */
function threadOf(entry: MemoryEntry): string | undefined {
  return entry.thread ?? (entry.modifiedBy !== undefined && entry.modifiedBy !== 'user' && !entry.modifiedBy.startsWith('import:') ? entry.modifiedBy : undefined);
}

/** `person`, `import:codex`, or who wrote it without its thread (`agent`, `subagent general-purpose`, `Claude Code`). */
function writerKind(entry: MemoryEntry): string | undefined {
  if (entry.writer !== undefined) return entry.writer.replace(/\s*\(thread [^)]*\)$/, '').replace(/\s*\(.*\)$/, '');
  if (entry.modifiedBy === 'user') return 'person';
  return entry.modifiedBy?.startsWith('import:') ? entry.modifiedBy : undefined;
}

/** One line for a row: `by you`, `by thread “Fix the build”`, `by subagent general-purpose in thread “…”`, `imported (import:codex)`. */
export function writtenBy(entry: MemoryEntry, titles: ThreadTitles): string | null {
  const kind = writerKind(entry);
  if (kind === 'person') return 'by you';
  if (kind?.startsWith('import:')) return `imported (${kind})`;
  const thread = threadOf(entry);
  const title = thread !== undefined ? titles.get(thread) : undefined;
  const inThread = thread === undefined ? null : title !== undefined ? `thread “${title}”` : 'a thread of another folder or a deleted thread';
  const who = kind === undefined || kind === 'agent' ? null : kind;
  if (who === null) return inThread === null ? null : `by ${inThread}`;
  return inThread === null ? `by ${who}` : `by ${who} in ${inThread}`;
}

/** The thread as a link that opens it (one of the open folder's), else in words. */
function ThreadLink({ threadId, titles }: { threadId: string; titles: ThreadTitles }): React.JSX.Element {
  const { openThread } = useMemoriesNav();
  const title = titles.get(threadId);
  if (title === undefined) return <span className="muted">a thread of another folder or a deleted thread</span>;
  return (
    <a
      href={`#thread-${encodeURIComponent(threadId)}`}
      className="path-link memory-thread-link"
      title="Open this thread"
      onClick={(e) => {
        e.preventDefault();
        openThread(threadId);
      }}
    >
      <VisibleText text={title || 'Untitled thread'} />
    </a>
  );
}

/** A writer's label for people with its thread left to the link beside it: `you`, `agent (turn 2, scripted-model)`, `import:codex`. */
export function writerWords(label: string): string {
  return label === 'person' ? 'you' : label.replace(/\(thread [^,)]*(?:, )?/, '(').replace(/\s*\(\)$/, '');
}

/** Who wrote the memory, in which thread: `agent, turn 2, scripted-model, in thread <link>`. */
export function WriterLine({ entry, titles, verb }: { entry: MemoryEntry; titles: ThreadTitles; verb: string }): React.JSX.Element {
  const thread = threadOf(entry);
  const writer = writerWords(entry.writer ?? writerKind(entry) ?? 'unknown');
  return (
    <p className="memory-fact">
      {verb} {entry.modifiedAt ? formatRelativeTime(entry.modifiedAt) : ''} by <VisibleText text={writer} />
      <InThread thread={thread} titles={titles} />
    </p>
  );
}

/** ` in thread <link>`, or nothing for a write no thread made. */
export function InThread({ thread, titles }: { thread: string | undefined; titles: ThreadTitles }): React.JSX.Element | null {
  return thread === undefined ? null : <> in thread <ThreadLink threadId={thread} titles={titles} /></>;
}

/** The facts of an active memory: its writer and thread, its version and scope, its use, its stale mark. */
export function MemoryFacts({ entry, titles }: { entry: MemoryEntry; titles: ThreadTitles }): React.JSX.Element {
  return (
    <div className="memory-facts small">
      <WriterLine entry={entry} titles={titles} verb="Changed" />
      <p className="memory-fact muted">
        {[entry.version !== undefined ? `Version ${entry.version}` : null, entry.scope === 'global' ? 'Global: every project' : entry.scope === 'project' ? 'This project' : null].filter(Boolean).join(' · ')}
      </p>
      <p className="memory-fact muted">
        {entry.lastUsedAt !== undefined
          ? `Last used ${formatRelativeTime(entry.lastUsedAt)}, in ${entry.usedTurns ?? 0} turn${entry.usedTurns === 1 ? '' : 's'}`
          : 'Not used yet'}
      </p>
      {entry.stale !== undefined ? (
        <p className="memory-fact memory-stale">Stale: <VisibleText text={entry.stale} /></p>
      ) : null}
    </div>
  );
}
