// The first time a folder is opened, the header offers the choice of approval mode without
// blocking anything (`ask` applies until the person picks one): a highlighted button next to
// the Mode control opens the choices with what each means. Nothing covers the window unless
// the person opens it.

import { useEffect, useId, useRef, useState } from 'react';
import type { ApprovalModeDto } from '../../../src-main/app/contract';
import { MODE_LABELS, type ModeApi } from '../state/use-mode';

const MODES: ApprovalModeDto[] = ['ask', 'edit', 'auto', 'plan'];

export function ModeChooser({ mode }: { mode: ModeApi }): React.JSX.Element | null {
  const { state, setMode } = mode;
  const [open, setOpen] = useState(false);
  const [later, setLater] = useState(false);
  const headingId = useId();
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return undefined;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') setOpen(false);
    };
    const onPointer = (e: PointerEvent): void => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open]);

  if (!state || state.chosen || later) return null;
  return (
    <div className="mode-chooser-anchor" ref={box}>
      <button type="button" className="btn btn-small mode-chooser-button" aria-expanded={open} onClick={() => setOpen((o) => !o)} title="Choose how much the agent may do on its own in this folder">
        Show mode choices for this new folder
      </button>
      {open ? (
        <div className="mode-chooser">
          <div className="notice-row">
            <strong id={headingId}>How much may the agent do on its own in this folder?</strong>
          </div>
          <span className="muted">Ask applies until you choose; you can change it any time in the header.</span>
          <div className="mode-choices" role="radiogroup" aria-labelledby={headingId}>
            {MODES.map((m) => {
              const unavailable = m === 'auto' && !state.sandbox.available;
              return (
                <label key={m} className={`mode-choice${unavailable ? ' unavailable' : ''}`}>
                  <input
                    type="radio"
                    name={headingId}
                    value={m}
                    checked={false}
                    disabled={unavailable}
                    onChange={() => {
                      setOpen(false);
                      void setMode(m);
                    }}
                  />
                  <span className="mode-choice-title">{m}</span>
                  <span className="mode-choice-detail">{unavailable ? `Needs a sandbox (${state.sandbox.reason ?? 'none here'}).` : MODE_LABELS[m].detail}</span>
                </label>
              );
            })}
          </div>
          <div className="dialog-actions">
            <button
              type="button"
              className="btn btn-small btn-quiet"
              onClick={() => {
                setOpen(false);
                setLater(true);
              }}
            >
              Later
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
