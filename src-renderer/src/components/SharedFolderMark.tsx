// The mark of a thread working in the same folder as another, at the same time, without a
// worktree to keep them apart (SPEC §16): an icon, its words for screen readers and as its
// tooltip.

import { Icon } from './Icon';

export const SHARED_FOLDER_TEXT = 'Another thread is working in this folder';

export function SharedFolderMark(): React.JSX.Element {
  return (
    <span className="shared-mark" title={SHARED_FOLDER_TEXT}>
      <Icon name="users" size={13} />
      <span className="visually-hidden">{SHARED_FOLDER_TEXT}</span>
    </span>
  );
}
