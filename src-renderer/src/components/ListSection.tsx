// A Settings section listing what is loaded or configured (skills, hooks, MCP servers, mounts):
// its heading (the section's name), what it is for, `Loading…` until the list comes, a
// sentence when it is empty, and what goes under the list.

import { useId, type ReactNode } from 'react';

interface ListSectionProps {
  title: string;
  className?: string;
  about: string;
  /** undefined while loading. */
  items: readonly unknown[] | undefined;
  empty: string;
  listLabel?: string;
  /** The list's rows. */
  children: ReactNode;
  /** Under the list: a note, the problems of its files, a form to add one. */
  after?: ReactNode;
}

export function ListSection({ title, className, about, items, empty, listLabel, children, after }: ListSectionProps): React.JSX.Element {
  const titleId = useId();
  return (
    <section className={className ? `settings-section ${className}` : 'settings-section'} aria-labelledby={titleId}>
      <h3 id={titleId} className="settings-section-title">{title}</h3>
      <p className="muted small">{about}</p>
      {items === undefined ? <p className="muted small">Loading…</p> : items.length === 0 ? <p className="muted small">{empty}</p> : <ul className="mcp-list" aria-label={listLabel}>{children}</ul>}
      {after}
    </section>
  );
}
