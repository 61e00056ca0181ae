// Settings › Memories (SPEC §25): whether a memory an agent writes while untrusted content is in
// its context waits for the person's review (`memories.review: person`, the default) or is
// active at once (`off`).

import { useId } from 'react';
import type { Settings } from '../../../src-main/app/contract';

type Memories = NonNullable<Settings['memories']>;

export function MemoriesSettings({ value, onChange }: { value: Settings['memories']; onChange(value: Memories): void }): React.JSX.Element {
  const about = useId();
  return (
    <fieldset className="settings-section">
      <legend>Memories</legend>
      <div className="field">
        <label className="usage-checkbox">
          <input type="checkbox" checked={value?.review !== 'off'} aria-describedby={about} onChange={(e) => onChange({ ...value, review: e.target.checked ? 'person' : 'off' })} />
          Review memories written by agents
        </label>
        <p className="muted small" id={about}>
          A memory an agent writes after reading files, command output, web or MCP content is proposed: no other thread sees it until you approve it in the
          Memories panel. Off, every memory an agent writes is used at once.
        </p>
      </div>
    </fieldset>
  );
}
