// One changed file's diff, large: the Changes panel is too narrow to read a diff in, so each
// changed file opens its whole diff in a dialog as wide as the window allows. Esc or Close
// closes it; focus goes back to what opened it (Modal).

import { DiffView } from './DiffView';
import { CloseActions, Modal } from './Modal';
import { PathName } from './PathName';

export function DiffDialog({ path, before, after, onClose }: { path: string; before: string; after: string; onClose(): void }): React.JSX.Element {
  return (
    <Modal label={`Diff of ${path}`} onEscape={onClose} className="diff-dialog" title={<PathName path={path} className="mono" />}>
      <DiffView path={path} before={before} after={after} />
      <CloseActions onClose={onClose} />
    </Modal>
  );
}
