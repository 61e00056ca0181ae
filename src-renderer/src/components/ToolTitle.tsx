// A tool call's title (lib/tool-title.ts) on screen: words as text, a command or pattern as
// code, a path as a link to the file. Every part is data: text nodes only, invisible
// characters shown as escapes.

import { toolTitle } from '../lib/tool-title';
import { PathLink } from './PathLink';
import { VisibleText } from './VisibleText';

export function ToolTitle({ name, args, className }: { name: string; args: unknown; className?: string }): React.JSX.Element {
  const { parts } = toolTitle(name, args);
  return (
    <span className={`tool-title${className ? ` ${className}` : ''}`}>
      {parts.map((part, i) =>
        part.kind === 'code' ? (
          <code key={i} className="mono tool-title-code">
            <VisibleText text={part.text} />
          </code>
        ) : part.kind === 'path' ? (
          <PathLink key={i} path={part.path} label={part.text} fit />
        ) : (
          <VisibleText key={i} text={part.text} />
        ),
      )}
    </span>
  );
}
