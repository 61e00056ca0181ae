// Settings › Provenance (SPEC §24): whether git-ai notes of who wrote each line are written
// under refs/notes/ai, pushed with the branch's remote, and whether Deepdesk's own commits get
// an Assisted-by trailer; the open folder's own entry (`folders[DIR]`) over those, key by key.

import { useEffect, useId, useState } from 'react';
import type { Settings } from '../../../src-main/app/contract';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';

type Provenance = NonNullable<Settings['provenance']>;
type Choices = Omit<Provenance, 'folders'>;
type Key = keyof Choices;

/** Each choice: its label globally, the open folder's, and its default (notes on; push and trailer off). */
const CHOICES: ReadonlyArray<{ key: Key; label: string; folderLabel: string; otherwise: boolean; about: string }> = [
  { key: 'enabled', label: 'Write provenance notes', folderLabel: 'Notes in this folder', otherwise: true, about: 'A note per commit under refs/notes/ai (the git-ai standard): nothing in the folder, no git hook.' },
  { key: 'push', label: 'Push notes', folderLabel: 'Pushing from this folder', otherwise: false, about: "Fetched, merged under yours and pushed to origin with git's notes commands." },
  { key: 'trailer', label: 'Add an Assisted-by trailer', folderLabel: 'Trailer in this folder', otherwise: false, about: 'Assisted-by: Deepdesk:MODEL on the commits Deepdesk makes; never Co-authored-by.' },
];

export function ProvenanceSettings({ value, onChange }: { value: Settings['provenance']; onChange(value: Provenance): void }): React.JSX.Element {
  const api = useApi();
  const ids = useId();
  const [folder, setFolder] = useState<string | null>(null);
  useEffect(() => whileCurrent(api.safe('app.info', {}), (info) => info && setFolder(info.folder)), [api]);
  const own = folder !== null ? value?.folders?.[folder] : undefined;
  const set = (key: Key, on: boolean): void => onChange({ ...value, [key]: on });
  /** The folder's entry with `key` its own (`undefined`: as the global one); an empty entry goes. */
  const setOwn = (key: Key, on: boolean | undefined): void => {
    if (folder === null) return;
    const { [key]: _was, ...rest } = own ?? {};
    const entry: Choices = on === undefined ? rest : { ...rest, [key]: on };
    const { [folder]: _entry, ...others } = value?.folders ?? {};
    onChange({ ...value, folders: Object.keys(entry).length > 0 ? { ...others, [folder]: entry } : others });
  };
  return (
    <fieldset className="settings-section">
      <legend>Provenance</legend>
      {CHOICES.map((c) => (
        <div className="field" key={c.key}>
          <label className="usage-checkbox">
            <input type="checkbox" checked={value?.[c.key] ?? c.otherwise} aria-describedby={`${ids}-${c.key}`} onChange={(e) => set(c.key, e.target.checked)} />
            {c.label}
          </label>
          <p className="muted small" id={`${ids}-${c.key}`}>
            {c.about}
          </p>
        </div>
      ))}
      {folder !== null ? (
        <fieldset className="settings-section">
          <legend>This folder</legend>
          <p className="muted small mono">{folder}</p>
          {CHOICES.map((c) => (
            <div className="field" key={c.key}>
              <label htmlFor={`${ids}-own-${c.key}`}>{c.folderLabel}</label>
              <select id={`${ids}-own-${c.key}`} value={own?.[c.key] === undefined ? 'global' : own[c.key] ? 'on' : 'off'} onChange={(e) => setOwn(c.key, e.target.value === 'global' ? undefined : e.target.value === 'on')}>
                <option value="global">As above</option>
                <option value="on">On</option>
                <option value="off">Off</option>
              </select>
            </div>
          ))}
        </fieldset>
      ) : null}
    </fieldset>
  );
}
