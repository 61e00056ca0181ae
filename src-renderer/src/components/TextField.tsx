// A form's fields (Settings, dialogs): a text field with its label, its input, and the line
// under it that says what it takes (its description when `linkHelp`; plain text under it
// otherwise); a select's options.

import type { InputHTMLAttributes, ReactNode } from 'react';

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> {
  id: string;
  label: ReactNode;
  value: string;
  onValue(value: string): void;
  /** Classes besides `field` on the field. */
  fieldClass?: string;
  help?: ReactNode;
  linkHelp?: boolean;
  /** What goes between the input and its help (a flag's note, a button). */
  children?: ReactNode;
}

/** A select's options, each value with its label. */
export function Options({ options }: { options: ReadonlyArray<{ value: string; label: string }> }): React.JSX.Element {
  return (
    <>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </>
  );
}

export function TextField({ id, label, onValue, fieldClass, help, linkHelp = false, children, ...input }: TextFieldProps): React.JSX.Element {
  return (
    <div className={fieldClass ? `field ${fieldClass}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      <input id={id} {...(linkHelp ? { 'aria-describedby': `${id}-help` } : {})} {...input} onChange={(e) => onValue(e.target.value)} />
      {children}
      {help !== undefined ? (
        <p id={`${id}-help`} className="muted small">
          {help}
        </p>
      ) : null}
    </div>
  );
}
