// The header's `Mode` control (SPEC §6, §7): a select of ask / edit / auto / plan; auto is
// disabled, with the reason, where no sandbox exists.

import type { ApprovalModeDto, ModeState } from '../../../src-main/app/contract';
import { MODE_LABELS } from '../state/use-mode';

const MODES: ApprovalModeDto[] = ['ask', 'edit', 'auto', 'plan'];

export function ModeControl({ state, onChange }: { state: ModeState | null; onChange(mode: ApprovalModeDto): void }): React.JSX.Element {
  const noSandbox = state !== null && !state.sandbox.available;
  const current = state?.mode ?? 'ask';
  return (
    <label className={`mode-control mode-${current}`} title={MODE_LABELS[current].detail}>
      <span className="mode-label">Mode</span>
      <select aria-label="Mode" value={current} disabled={state === null} onChange={(e) => onChange(e.target.value as ApprovalModeDto)}>
        {MODES.map((mode) => (
          <option key={mode} value={mode} disabled={mode === 'auto' && noSandbox} title={mode === 'auto' && noSandbox ? `Needs a sandbox: ${state?.sandbox.reason ?? ''}` : MODE_LABELS[mode].detail}>
            {mode}
          </option>
        ))}
      </select>
    </label>
  );
}
