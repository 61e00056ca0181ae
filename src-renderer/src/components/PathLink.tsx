// A path shown in the conversation, as a link that opens the file in the viewer when the
// file is in the folder (checked: a path that does not exist there is plain text), with
// invisible characters shown as escapes (a path is something the person trusts). `fit`: in a
// row short of room, the folders give way and the file name stays (PathName).

import { useOpenFile } from '../state/file-links';
import { usePathExists } from '../state/use-path-exists';
import { PathName } from './PathName';
import { VisibleText } from './VisibleText';

const NOT_IN_FOLDER = /^\/(?:memories|large_tool_results|conversation_history)(?:\/|$)/;

interface PathLinkProps {
  path: string;
  label?: string;
  fit?: boolean;
}

export function PathLink({ path, label, fit = false }: PathLinkProps): React.JSX.Element {
  const openFile = useOpenFile();
  const inFolder = path.startsWith('/') && !NOT_IN_FOLDER.test(path);
  const exists = usePathExists(inFolder ? path : null);
  const shown = label ?? path;
  const text = fit ? <PathName path={shown} title={false} /> : <VisibleText text={shown} />;
  if (!inFolder || exists !== true) {
    return (
      <span className="mono path-text" title={fit ? path : undefined}>
        {text}
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
      {text}
    </a>
  );
}
