// A path shown in the conversation, as a link that opens the file in the viewer
// (invisible characters shown as escapes: a path is something the person trusts).

import { useOpenFile } from '../state/file-links';
import { VisibleText } from './VisibleText';

const NOT_IN_FOLDER = /^\/(?:memories|large_tool_results|conversation_history)(?:\/|$)/;

export function PathLink({ path, label }: { path: string; label?: string }): React.JSX.Element {
  const openFile = useOpenFile();
  const shown = label ?? path;
  if (!path.startsWith('/') || NOT_IN_FOLDER.test(path)) {
    return (
      <span className="mono path-text">
        <VisibleText text={shown} />
      </span>
    );
  }
  return (
    <a
      href={`#${encodeURI(path)}`}
      className="path-link"
      title={`Open ${path}`}
      onClick={(e) => {
        e.preventDefault();
        e.stopPropagation();
        openFile(path);
      }}
    >
      <VisibleText text={shown} />
    </a>
  );
}
