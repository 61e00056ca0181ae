// One changed file's diff, large: the Changes panel is too narrow to read a diff in, so each
// changed file opens its whole diff in a dialog as wide as the window allows. Esc or Close
// closes it; focus goes back to what opened it (Modal). A change by hunks is judged here too:
// each with who wrote it, Reviewed, Keep and Revert.

import type { ReviewHunkDto } from '../../../src-main/app/contract/checkpoints';
import { DiffView } from './DiffView';
import { HunkReview } from './HunkReview';
import { CloseActions, Modal } from './Modal';
import { PathName } from './PathName';

export function DiffDialog({ path, before, after, hunks, onClose }: { path: string; before: string; after: string; hunks?: readonly ReviewHunkDto[]; onClose(): void }): React.JSX.Element {
  return (
    <Modal label={`Diff of ${path}`} onEscape={onClose} className="diff-dialog" title={<PathName path={path} className="mono" />}>
      {hunks ? <HunkReview path={path} hunks={hunks} after={after} /> : <DiffView path={path} before={before} after={after} />}
      <CloseActions onClose={onClose} />
    </Modal>
  );
}
