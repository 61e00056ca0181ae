// The model field of Settings: a combobox over the models the provider listed (click the
// arrow, or ArrowDown, to see them all; typing narrows them), where any other model id can
// still be typed. Enter or a click picks; Esc closes the list (not the dialog). The remote
// folder dialog's Host field is the same combobox over the person's ssh hosts.

import { useEffect, useRef, useState } from 'react';
import { Icon } from './Icon';

interface ModelPickerProps {
  /** The input's id (its <label> names the combobox). */
  id: string;
  value: string;
  /** The models to offer (the provider's list); empty: a plain field. */
  models: readonly string[];
  placeholder?: string;
  disabled?: boolean;
  describedBy?: string;
  onChange(value: string): void;
  /** Each new value opens the list with every model (after `Refresh models` found some). */
  openKey?: number;
  /** The list's name (default `Models`); its toggle is `Show …`/`Hide …` of it in lower case. */
  listLabel?: string;
  /** Shown when nothing listed matches what was typed. */
  noMatchText?: string;
}

export function ModelPicker({
  id,
  value,
  models,
  placeholder,
  disabled = false,
  describedBy,
  onChange,
  openKey = 0,
  listLabel = 'Models',
  noMatchText = 'No listed model matches; this id is used as typed.',
}: ModelPickerProps): React.JSX.Element {
  const listId = `${id}-models`;
  const input = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  /** Narrows the list to what was typed; null shows every model. */
  const [filter, setFilter] = useState<string | null>(null);
  const [active, setActive] = useState(-1);

  const query = filter?.trim().toLowerCase() ?? '';
  const shown = query === '' ? models : models.filter((m) => m.toLowerCase().includes(query));
  const expanded = open && !disabled && models.length > 0;

  const showAll = (): void => {
    setFilter(null);
    setOpen(true);
    setActive(Math.max(0, models.indexOf(value)));
  };

  const opened = useRef(openKey);
  useEffect(() => {
    if (openKey === opened.current) return;
    opened.current = openKey;
    if (models.length === 0) return;
    setFilter(null);
    setOpen(true);
    setActive(Math.max(0, models.indexOf(value)));
    input.current?.focus();
    // Only a new openKey opens the list (not a change of the models or the value).
  }, [openKey]);

  // The active option stays in view.
  useEffect(() => {
    if (!expanded || active < 0) return;
    document.getElementById(`${listId}-${active}`)?.scrollIntoView?.({ block: 'nearest' });
  }, [expanded, active, listId]);

  const choose = (model: string): void => {
    onChange(model);
    setOpen(false);
    setFilter(null);
    setActive(-1);
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (models.length === 0) return;
      e.preventDefault();
      if (!expanded) {
        showAll();
        return;
      }
      if (shown.length === 0) return;
      setActive((i) => (e.key === 'ArrowDown' ? (i + 1) % shown.length : (i - 1 + shown.length) % shown.length));
    } else if (e.key === 'Enter' && expanded && shown[active] !== undefined) {
      e.preventDefault();
      choose(shown[active]);
    } else if (e.key === 'Escape' && expanded) {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  };

  return (
    <div className="model-picker">
      <input
        ref={input}
        id={id}
        className="mono"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && active >= 0 && active < shown.length ? `${listId}-${active}` : undefined}
        aria-describedby={describedBy}
        placeholder={placeholder}
        value={value}
        spellCheck={false}
        autoComplete="off"
        disabled={disabled}
        onChange={(e) => {
          onChange(e.target.value);
          setFilter(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <button
        type="button"
        className="icon-btn model-picker-toggle"
        aria-label={`${expanded ? 'Hide' : 'Show'} ${listLabel.toLowerCase()}`}
        aria-controls={listId}
        aria-expanded={expanded}
        tabIndex={-1}
        disabled={disabled || models.length === 0}
        // Keeps the focus in the field.
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => {
          if (expanded) setOpen(false);
          else showAll();
          input.current?.focus();
        }}
      >
        <Icon name="chevronDown" size={14} />
      </button>
      <ul id={listId} className="model-picker-list" role="listbox" aria-label={listLabel} hidden={!expanded}>
        {shown.length === 0 ? (
          <li className="model-picker-empty" role="presentation">
            {noMatchText}
          </li>
        ) : (
          shown.map((model, i) => (
            <li
              key={model}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={model === value}
              className={`model-picker-option${i === active ? ' active' : ''}`}
              onMouseDown={(e) => e.preventDefault()}
              onMouseEnter={() => setActive(i)}
              onClick={() => choose(model)}
            >
              {model}
            </li>
          ))
        )}
      </ul>
    </div>
  );
}
