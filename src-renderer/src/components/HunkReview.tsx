// A changed file's diff by hunks (SPEC §24): who wrote each (a thread's agent and its model,
// the person, or nobody known), a Reviewed mark kept with the thread, Keep, and Revert of one
// hunk (a file of one hunk is reverted whole by the file's own Revert).

import type { LineAuthorDto, ReviewHunkDto } from '../../../src-main/app/contract/checkpoints';
import { rowsFromHunks } from '../lib/diff-rows';
import { useCheckpoints } from '../state/checkpoints-context';
import { DiffTable } from './DiffView';
import { PathName } from './PathName';

export function HunkReview({ path, hunks }: { path: string; hunks: readonly ReviewHunkDto[] }): React.JSX.Element {
  const checkpoints = useCheckpoints();
  return (
    <figure className="diff" aria-label={`Changes to ${path}`}>
      <figcaption className="diff-head">
        <PathName path={path} className="mono diff-path" />
      </figcaption>
      <div className="diff-body" tabIndex={0}>
        {hunks.map((hunk, i) => (
          <div key={hunk.id} role="group" aria-label={`Change ${i + 1} of ${hunks.length}`} className={`diff-review${hunk.reviewed ? ' reviewed' : ''}`}>
            <div className="diff-review-bar">
              <span className="diff-author muted">Written by {hunk.authors.map((a) => authorWords(a, checkpoints?.threadId ?? null)).join(', ')}</span>
              <label className="diff-reviewed">
                <input type="checkbox" checked={hunk.reviewed} onChange={(e) => checkpoints?.markReviewed(hunk.id, e.target.checked)} /> Reviewed
              </label>
              <button type="button" className="btn btn-small" disabled={hunk.reviewed} onClick={() => checkpoints?.markReviewed(hunk.id, true)} title="Keep this change (marks it Reviewed)">
                Keep
              </button>
              {hunks.length > 1 ? (
                <button type="button" className="btn btn-small" disabled={checkpoints?.working ?? true} onClick={() => checkpoints?.revertHunk(path, hunk.id)} title="Put these lines back as they were (while the agent runs, once its step ends)">
                  Revert
                </button>
              ) : null}
            </div>
            <DiffTable rows={rowsFromHunks([hunk]).rows.slice(1)} />
          </div>
        ))}
      </div>
    </figure>
  );
}

function authorWords(author: LineAuthorDto, threadId: string | null): string {
  if (author.kind === 'person') return 'you';
  if (author.kind === 'unknown' || author.thread === undefined) return 'an unknown author';
  const thread = author.thread === threadId ? 'this thread' : `thread ${author.thread.slice(0, 8)}`;
  return [author.agent ?? thread, ...(author.agent !== undefined ? [thread] : []), ...(author.model !== undefined ? [author.model] : [])].join(' · ');
}
