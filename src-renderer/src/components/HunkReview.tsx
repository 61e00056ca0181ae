// A changed file's diff by hunks (SPEC §24): who wrote each (a thread's agent and its model,
// the person, or nobody known), a Reviewed mark kept with the thread, Keep, and Revert of that
// hunk alone (in a file of one hunk it is the file's Revert). Each control's name says which
// change of which file, and whose, for a screen reader that hears it out of the diff.

import type { LineAuthorDto, ReviewHunkDto } from '../../../src-main/app/contract/checkpoints';
import { rowsFromHunks, type Hunk } from '../lib/diff-rows';
import { useCheckpoints } from '../state/checkpoints-context';
import { DiffTable } from './DiffView';
import { PathName } from './PathName';

/** Lines of the file around a hunk shown with it when the file's text (`after`) is given. */
const CONTEXT = 3;

export function HunkReview({ path, hunks, after }: { path: string; hunks: readonly ReviewHunkDto[]; after?: string }): React.JSX.Element {
  const checkpoints = useCheckpoints();
  const lines = after?.split('\n');
  if (lines?.at(-1) === '') lines.pop();
  return (
    <figure className="diff" aria-label={`Changes to ${path}`}>
      <figcaption className="diff-head">
        <PathName path={path} className="mono diff-path" />
      </figcaption>
      <div className="diff-body" tabIndex={0}>
        {hunks.map((hunk, i) => {
          const who = hunk.authors.map((a) => authorWords(a, checkpoints?.threadId ?? null)).join(', ');
          const which = `${i + 1} of ${hunks.length} in ${path} by ${who}`;
          return (
            <div key={hunk.id} role="group" aria-label={`Change ${which}`} className={`diff-review${hunk.reviewed ? ' reviewed' : ''}`}>
              <div className="diff-review-bar">
                <span className="diff-author muted">Written by {who}</span>
                <label className="diff-reviewed">
                  <input type="checkbox" aria-label={`Reviewed change ${which}`} checked={hunk.reviewed} onChange={(e) => checkpoints?.markReviewed(hunk.id, e.target.checked)} /> Reviewed
                </label>
                <button type="button" className="btn btn-small" aria-label={`Keep change ${which}`} disabled={hunk.reviewed} onClick={() => checkpoints?.markReviewed(hunk.id, true)} title="Keep this change (marks it Reviewed)">
                  Keep
                </button>
                <button type="button" className="btn btn-small" aria-label={`Revert change ${which}`} disabled={checkpoints?.working ?? true} onClick={() => checkpoints?.revertHunk(path, hunk.id)} title="Put these lines back as they were, keeping what others changed since (while the agent runs, once its step ends)">
                  Revert
                </button>
              </div>
              <DiffTable rows={rowsFromHunks([lines ? inContext(hunk, lines) : hunk]).rows.slice(1)} />
            </div>
          );
        })}
      </div>
    </figure>
  );
}

/** The hunk with up to CONTEXT lines of the file (as the change left it) each side. */
function inContext(hunk: Hunk, lines: readonly string[]): Hunk {
  const end = hunk.newStart - 1 + hunk.newLines;
  const ahead = lines.slice(Math.max(0, hunk.newStart - 1 - CONTEXT), hunk.newStart - 1).map((l) => ' ' + l);
  const behind = lines.slice(end, end + CONTEXT).map((l) => ' ' + l);
  return { ...hunk, oldStart: hunk.oldStart - ahead.length, newStart: hunk.newStart - ahead.length, lines: [...ahead, ...hunk.lines, ...behind] };
}

function authorWords(author: LineAuthorDto, threadId: string | null): string {
  if (author.kind === 'person') return 'you';
  if (author.kind === 'unknown' || author.thread === undefined) return 'an unknown author';
  const thread = author.thread === threadId ? 'this thread' : `thread ${author.thread.slice(0, 8)}`;
  return [author.agent ?? thread, ...(author.agent !== undefined ? [thread] : []), ...(author.model !== undefined ? [author.model] : [])].join(' · ');
}
