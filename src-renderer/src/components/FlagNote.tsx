// Under a settings field that a command-line flag sets for this session: says which flag,
// and that the flag's value is used now but never saved.

import { OVERRIDE_FLAGS, type OverriddenFields } from '../../../src-main/app/contract';

export function FlagNote({ id, field }: { id: string; field: keyof OverriddenFields }): React.JSX.Element {
  const flag = OVERRIDE_FLAGS[field];
  return (
    <p id={id} className="muted small flag-note">
      Set by {flag} for this session: the flag&apos;s value is used and never saved. Start Deepdesk without {flag} to use and change the saved setting.
    </p>
  );
}
