// A path in a row that is short of room: its folders give way first (cut in the middle,
// `src/deep/fo…calc.py`), the file name stays (styles/path-name.css). Inline blocks, so the
// text still reads and copies as the one path it is; no inline style (nothing in a card
// carries one). The whole path is the tooltip. Invisible characters show as escapes (a path
// is something the person trusts).

import '../styles/path-name.css';
import { splitPath } from '../lib/path-name';
import { VisibleText } from './VisibleText';

/** File names longer than this keep this much room (path-name.css has a rule per length). */
const MAX_BASE = 64;

export function PathName({ path, className, title = true }: { path: string; className?: string; title?: boolean }): React.JSX.Element {
  const { dir, base } = splitPath(path);
  return (
    <span className={`path-name${className ? ` ${className}` : ''}`} title={title ? path : undefined} data-base={Math.min(MAX_BASE, Array.from(base).length)}>
      {dir !== '' ? (
        <span className="path-dir">
          <VisibleText text={dir} />
        </span>
      ) : null}
      <span className="path-base">
        <VisibleText text={base} />
      </span>
    </span>
  );
}
