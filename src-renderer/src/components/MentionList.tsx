// The @-mention suggestions under the message box (a listbox driven from the textarea).

import { useEffect, useRef } from 'react';

interface MentionListProps {
  id: string;
  options: readonly string[];
  active: number;
  loading: boolean;
  onChoose(path: string): void;
  onHover(index: number): void;
}

export function mentionOptionId(listId: string, index: number): string {
  return `${listId}-opt-${index}`;
}

export function MentionList({ id, options, active, loading, onChoose, onHover }: MentionListProps): React.JSX.Element {
  const ref = useRef<HTMLUListElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>(`#${CSS.escape(mentionOptionId(id, active))}`)?.scrollIntoView({ block: 'nearest' });
  }, [id, active]);
  return (
    <ul ref={ref} id={id} className="mention-list" role="listbox" aria-label="Files to mention">
      {options.length === 0 ? (
        <li className="mention-empty" role="presentation">
          {loading ? 'Searching…' : 'No matching files or resources'}
        </li>
      ) : (
        options.map((path, i) => {
          // A file's path starts with `/`; anything else is an MCP resource, `server:URI`.
          const resource = !path.startsWith('/');
          const slash = resource ? path.indexOf(':') : path.lastIndexOf('/');
          return (
            <li
              key={path}
              id={mentionOptionId(id, i)}
              role="option"
              aria-selected={i === active}
              className={`mention-option${i === active ? ' active' : ''}`}
              // mousedown keeps focus in the textarea
              onMouseDown={(e) => {
                e.preventDefault();
                onChoose(path);
              }}
              onMouseEnter={() => onHover(i)}
            >
              <span className="mention-name">{path.slice(slash + 1)}</span>
              <span className="mention-dir">{resource ? `${path.slice(0, slash)} (MCP resource)` : path.slice(0, slash + 1)}</span>
            </li>
          );
        })
      )}
    </ul>
  );
}
