// Above the conversation, never blocking it: the first time a folder is opened, the choice
// of approval mode (`ask` applies until the person picks one); and, once per folder, that
// no sandbox exists here (commands then ask unless a rule allows them).

import { useEffect, useId, useRef, useState } from 'react';
import type { ApprovalModeDto } from '../../../src-main/app/contract';
import { MODE_LABELS, type ModeApi } from '../state/use-mode';

const MODES: ApprovalModeDto[] = ['ask', 'edit', 'auto', 'plan'];

export function ModeNotices({ mode }: { mode: ModeApi }): React.JSX.Element | null {
  const { state, setMode, noticeShown } = mode;
  const [chooserClosed, setChooserClosed] = useState(false);
  const [sandboxNotice, setSandboxNotice] = useState(false);
  const reported = useRef(false);
  const headingId = useId();

  // Shown in this window until dismissed; recorded at once so that it is shown once per folder.
  useEffect(() => {
    if (!state || reported.current || state.sandbox.available || state.sandboxNoticeShown) return;
    reported.current = true;
    setSandboxNotice(true);
    noticeShown();
  }, [state, noticeShown]);

  if (!state) return null;
  const chooser = !state.chosen && !chooserClosed;
  if (!chooser && !sandboxNotice) return null;
  return (
    <div className="mode-notices">
      {sandboxNotice ? (
        <div className="notice notice-sandbox" role="status">
          <div className="notice-row">
            <strong>No sandbox on this machine.</strong>
            <span className="spacer" />
            <button type="button" className="btn btn-small btn-quiet" onClick={() => setSandboxNotice(false)}>
              Dismiss
            </button>
          </div>
          <span>
            {state.sandbox.reason ? `${state.sandbox.reason}. ` : ''}The agent&apos;s commands run unsandboxed here, so each one asks unless a rule allows it, and
            auto mode is unavailable.
          </span>
        </div>
      ) : null}
      {chooser ? (
        <div className="notice mode-chooser">
          <div className="notice-row">
            <strong id={headingId}>How much may the agent do on its own in this folder?</strong>
            <span className="spacer" />
            <button type="button" className="btn btn-small btn-quiet" onClick={() => setChooserClosed(true)}>
              Later
            </button>
          </div>
          <span className="muted">Ask applies until you choose; you can change it any time in the header.</span>
          <div className="mode-choices" role="radiogroup" aria-labelledby={headingId}>
            {MODES.map((m) => {
              const unavailable = m === 'auto' && !state.sandbox.available;
              return (
                <label key={m} className={`mode-choice${unavailable ? ' unavailable' : ''}`} title={unavailable ? `Needs a sandbox: ${state.sandbox.reason ?? ''}` : undefined}>
                  <input type="radio" name={headingId} value={m} checked={state.chosen && m === state.mode} disabled={unavailable} onChange={() => void setMode(m)} />
                  <span className="mode-choice-title">{m}</span>
                  <span className="mode-choice-detail">{unavailable ? `Needs a sandbox (${state.sandbox.reason ?? 'none here'}).` : MODE_LABELS[m].detail}</span>
                </label>
              );
            })}
          </div>
        </div>
      ) : null}
    </div>
  );
}
