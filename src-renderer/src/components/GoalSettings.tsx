// Settings › Goals (SPEC §21): the grader's model (empty: the thread's own) and how many
// revision rounds a goal gets before it ends `unmet`.

import { MAX_ROUNDS_DEFAULT, MAX_ROUNDS_MAX, MAX_ROUNDS_MIN } from '../lib/goal-settings';

interface GoalSettingsProps {
  graderModelText: string;
  maxRoundsText: string;
  candidatesBudgetText: string;
  /** The thread's model now (what an empty grader model means). */
  modelInUse: string;
  onChange(patch: { graderModelText?: string; maxRoundsText?: string; candidatesBudgetText?: string }): void;
}

export function GoalSettings({ graderModelText, maxRoundsText, candidatesBudgetText, modelInUse, onChange }: GoalSettingsProps): React.JSX.Element {
  return (
    <fieldset className="settings-section">
      <legend>Goals</legend>
      <div className="field">
        <label htmlFor="settings-goals-grader">Grader</label>
        <input
          id="settings-goals-grader"
          placeholder={modelInUse ? `the thread's model (${modelInUse})` : "the thread's model"}
          value={graderModelText}
          onChange={(e) => onChange({ graderModelText: e.target.value })}
        />
        <p className="muted small">The model (PROVIDER:MODEL) of the separate call that judges the criteria from the evidence. Empty: the thread&apos;s model.</p>
      </div>
      <div className="field">
        <label htmlFor="settings-goals-rounds">Revision rounds</label>
        <input
          id="settings-goals-rounds"
          type="number"
          inputMode="numeric"
          min={MAX_ROUNDS_MIN}
          max={MAX_ROUNDS_MAX}
          placeholder={String(MAX_ROUNDS_DEFAULT)}
          value={maxRoundsText}
          onChange={(e) => onChange({ maxRoundsText: e.target.value })}
        />
        <p className="muted small">
          How many times open criteria go back to the agent before the goal ends unmet ({MAX_ROUNDS_MIN}–{MAX_ROUNDS_MAX}; empty: {MAX_ROUNDS_DEFAULT}).
        </p>
      </div>
      <div className="field">
        <label htmlFor="settings-goals-candidates-budget">Budget for a set of candidates (USD)</label>
        <input
          id="settings-goals-candidates-budget"
          inputMode="decimal"
          placeholder="none"
          value={candidatesBudgetText}
          onChange={(e) => onChange({ candidatesBudgetText: e.target.value })}
        />
        <p className="muted small">
          One budget every model call of every candidate in a set holds before it starts, when the set is started without one (run --candidates without --max-cost, or Run N candidates with its budget empty). Empty: none.
        </p>
      </div>
    </fieldset>
  );
}
