// Suggestions under the message box: a listbox driven from the textarea (the caret stays
// there; the textarea's aria-activedescendant names the active option). The @-mention list
// and the slash-command list are two uses of it.

import { useEffect, useRef } from 'react';

export interface Suggestion {
  key: string;
  /** Shown first, in the option's main colour. */
  name: string;
  /** Shown after it, muted. */
  detail: string;
}

interface SuggestionListProps {
  id: string;
  label: string;
  options: readonly Suggestion[];
  active: number;
  /** Shown when there is no option (e.g. `Searching…`); without it an empty list shows nothing. */
  empty?: string;
  onChoose(index: number): void;
  onHover(index: number): void;
  /** The detail is prose (a command's description): it wraps instead of being cut. */
  wrapDetail?: boolean;
}

export function suggestionOptionId(listId: string, index: number): string {
  return `${listId}-opt-${index}`;
}

export function SuggestionList({ id, label, options, active, empty, onChoose, onHover, wrapDetail = false }: SuggestionListProps): React.JSX.Element {
  const ref = useRef<HTMLUListElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>(`#${CSS.escape(suggestionOptionId(id, active))}`)?.scrollIntoView({ block: 'nearest' });
  }, [id, active]);
  return (
    <ul ref={ref} id={id} className={`mention-list${wrapDetail ? ' mention-list-prose' : ''}`} role="listbox" aria-label={label}>
      {options.length === 0 && empty !== undefined ? (
        <li className="mention-empty" role="presentation">
          {empty}
        </li>
      ) : (
        options.map((option, i) => (
          <li
            key={option.key}
            id={suggestionOptionId(id, i)}
            role="option"
            aria-selected={i === active}
            className={`mention-option${i === active ? ' active' : ''}`}
            // mousedown keeps focus in the textarea
            onMouseDown={(e) => {
              e.preventDefault();
              onChoose(i);
            }}
            onMouseEnter={() => onHover(i)}
          >
            {/* A name is never broken mid-word: one line, cut with an ellipsis when it is too long (whole in its tooltip). */}
            <span className="mention-name" title={option.name}>
              {option.name}
            </span>
            <span className="mention-dir">{option.detail}</span>
          </li>
        ))
      )}
    </ul>
  );
}
