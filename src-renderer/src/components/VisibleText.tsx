// Text the person must be able to trust (commands, paths): invisible and direction-changing
// characters are shown as ⟨U+XXXX⟩ escapes, marked so they stand out.

import { memo } from 'react';
import { visibleParts } from '../lib/visible-text';

export const VisibleText = memo(function VisibleText({ text }: { text: string }): React.JSX.Element {
  const parts = visibleParts(text);
  if (parts.length === 1 && !parts[0]!.escaped) return <>{text}</>;
  return (
    <>
      {parts.map((part, i) =>
        part.escaped ? (
          <mark key={i} className="invisible-char" title="An invisible or control character">
            {part.text}
          </mark>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
});
