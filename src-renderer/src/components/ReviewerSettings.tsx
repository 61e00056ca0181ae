// Settings › Approvals › Review with a model (SPEC §23): a reviewer model answers what would ask
// the person first, behind the rules, protected paths and the sandbox; what it cannot answer
// still asks the person. For all folders or for the open folder alone. Test reviews a harmless
// fixed action with what is typed and shows the verdict or the error. On or off comes first,
// then where it applies, then its model; the switch is named apart from the section.

import { useState } from 'react';
import type { Settings } from '../../../src-main/app/contract';
import { choicesDraft, REVIEW_TIMEOUT_DEFAULT, typedReviewer, type ReviewerDraft } from '../lib/reviewer-settings';
import { verdictText } from '../lib/review-words';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { FlagNote } from './FlagNote';
import { Spinner } from './Icon';
import { TextField } from './TextField';
import { VisibleText } from './VisibleText';

interface ReviewerSettingsProps {
  draft: ReviewerDraft;
  /** As saved: choosing all folders or this one shows what is saved there. */
  saved: Settings['reviewer'];
  /** The open folder. */
  folder: string;
  /** The thread's model now (what an empty reviewer model means). */
  modelInUse: string;
  /** `--reviewer` sets it for this session: shown, never saved. */
  flag: boolean;
  onChange(patch: Partial<ReviewerDraft>): void;
}

export function ReviewerSettings({ draft, saved, folder, modelInUse, flag, onChange }: ReviewerSettingsProps): React.JSX.Element {
  const api = useApi();
  const [test, setTest] = useState<{ ok: boolean; message: string } | 'running' | null>(null);

  const runTest = async (): Promise<void> => {
    const typed = typedReviewer({ ...draft, reviewerOn: true });
    if ('error' in typed) {
      setTest({ ok: false, message: typed.error });
      return;
    }
    setTest('running');
    try {
      const { model = '', timeoutSeconds } = typed.choices;
      const result = await api.call('settings.testReviewer', { ...(model !== '' ? { model } : {}), ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) });
      setTest(result.ok ? { ok: true, message: verdictText(result.verdict) } : { ok: false, message: result.message });
    } catch (err) {
      setTest({ ok: false, message: errorMessage(err) });
    }
  };

  // A scope shows what is saved there; this folder with no entry of its own keeps what is shown (ticked first, then narrowed).
  const own = saved?.folders?.[folder];
  const scopeDraft = (scope: 'all' | 'folder') => (scope === 'all' ? choicesDraft(saved) : own !== undefined ? choicesDraft({ ...saved, ...own }) : {});

  return (
    <fieldset className="settings-subsection" disabled={flag} aria-describedby={flag ? 'settings-reviewer-flag' : undefined}>
      <legend>Review with a model</legend>
      {flag ? <FlagNote id="settings-reviewer-flag" field="reviewerChoice" /> : null}
      <label className="checkbox">
        <input type="checkbox" checked={draft.reviewerOn} onChange={(e) => onChange({ reviewerOn: e.target.checked })} />
        Turn on review with a model
      </label>
      <p className="muted small">
        A reviewer model answers what would ask you, after the deny rules, protected paths and the sandbox, and sensitive writes in the folder (CI, hooks, package scripts, editor tasks, environment files, agent instructions). What it cannot answer, and protected paths, still ask you. Off: you answer everything.
      </p>
      <div role="radiogroup" aria-label="Review applies to" className="field-inline">
        {(['all', 'folder'] as const).map((scope) => (
          <label key={scope} className="checkbox">
            <input
              type="radio"
              name="settings-reviewer-scope"
              checked={draft.reviewerScope === scope}
              onChange={() => onChange({ reviewerScope: scope, ...scopeDraft(scope) })}
            />
            {scope === 'all' ? 'For all folders' : 'For this folder only'}
          </label>
        ))}
      </div>
      <TextField id="settings-reviewer-model" label="Reviewer" placeholder={modelInUse ? `the thread's model (${modelInUse})` : "the thread's model"} value={draft.reviewerModelText} onValue={(text) => onChange({ reviewerModelText: text })}
        help="Its model, PROVIDER:MODEL. Empty: the thread's own model."
      />
      <TextField id="settings-reviewer-timeout" label="Reviewer timeout (seconds)" type="number" inputMode="numeric" min={1} placeholder={String(REVIEW_TIMEOUT_DEFAULT)} value={draft.reviewerTimeoutText} onValue={(text) => onChange({ reviewerTimeoutText: text })}
        help="Each try's limit; a reviewer that does not answer in time asks you instead."
      />
      <div className="field-inline">
        <button type="button" className="btn" onClick={() => void runTest()} disabled={test === 'running'}>
          Test reviewer
        </button>
        {test === 'running' ? (
          <Spinner label="Testing" />
        ) : test ? (
          <span className={test.ok ? 'ok-text' : 'error-text'} role="status">
            <VisibleText text={test.message} />
          </span>
        ) : null}
      </div>
    </fieldset>
  );
}
