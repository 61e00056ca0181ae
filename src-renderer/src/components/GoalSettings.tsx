// Settings › Goals (SPEC §21): the grader's model (empty: the thread's own) and how many
// revision rounds a goal gets before it ends `unmet`.

import { MAX_ROUNDS_DEFAULT, MAX_ROUNDS_MAX, MAX_ROUNDS_MIN } from '../lib/goal-settings';
import { TextField } from './TextField';

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
      <TextField id="settings-goals-grader" label="Grader" placeholder={modelInUse ? `the thread's model (${modelInUse})` : "the thread's model"} value={graderModelText} onValue={(text) => onChange({ graderModelText: text })}
        help="The model (PROVIDER:MODEL) of the separate call that judges the criteria from the evidence. Empty: the thread's model."
      />
      <TextField id="settings-goals-rounds" label="Revision rounds" type="number" inputMode="numeric" min={MAX_ROUNDS_MIN} max={MAX_ROUNDS_MAX} placeholder={String(MAX_ROUNDS_DEFAULT)} value={maxRoundsText} onValue={(text) => onChange({ maxRoundsText: text })}
        help={`How many times open criteria go back to the agent before the goal ends unmet (${MAX_ROUNDS_MIN}–${MAX_ROUNDS_MAX}; empty: ${MAX_ROUNDS_DEFAULT}).`}
      />
      <TextField id="settings-goals-candidates-budget" label="Budget for a set of candidates (USD)" inputMode="decimal" placeholder="none" value={candidatesBudgetText} onValue={(text) => onChange({ candidatesBudgetText: text })}
        help="One budget every model call of every candidate in a set holds before it starts, when the set is started without one (run --candidates without --max-cost, or Run N candidates with its budget empty). Empty: none."
      />
    </fieldset>
  );
}
