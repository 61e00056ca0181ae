// Settings: model and provider (keys, connection test, local servers), context window,
// approval rules, subagents, theme. Edits are a draft until Save; API keys save at once
// (they go to the OS keychain, never back to the window).

import { useState } from 'react';
import type { Params, Settings } from '../../../src-main/app/contract';
import { useSettings } from '../state/settings-context';
import { Modal } from './Modal';
import { FlagNote } from './FlagNote';
import { ModelSettings } from './ModelSettings';
import { RulesSettings } from './RulesSettings';
import { SubagentSettings } from './SubagentSettings';

export type SettingsDraft = Omit<Settings, 'apiKeys' | 'overridden'> & { contextWindowText: string };

function toDraft(settings: Settings): SettingsDraft {
  return { ...settings, contextWindowText: settings.contextWindow !== undefined ? String(settings.contextWindow) : '' };
}

export function SettingsDialog({ onClose }: { onClose(): void }): React.JSX.Element {
  const { settings, update } = useSettings();
  const [draft, setDraft] = useState<SettingsDraft | null>(() => (settings ? toDraft(settings) : null));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  if (draft === null && settings) setDraft(toDraft(settings));

  const change = (patch: Partial<SettingsDraft>): void => setDraft((d) => (d ? { ...d, ...patch } : d));

  const save = async (): Promise<void> => {
    if (!draft) return;
    const flags = settings?.overridden ?? {};
    // A field a command-line flag sets is not the person's to save (the app refuses it too).
    const patch: Params<'settings.update'> = {
      ...(flags.model ? {} : { model: draft.model.trim() }),
      ...(flags.baseUrl ? {} : { baseUrl: draft.baseUrl.trim() }),
      rules: draft.rules,
      subagents: draft.subagents,
      theme: draft.theme,
    };
    const windowText = draft.contextWindowText.trim();
    if (windowText !== '' && !flags.contextWindow) {
      const n = Number(windowText);
      if (!Number.isInteger(n) || n <= 0) {
        setError('The context window must be a whole number of tokens.');
        return;
      }
      patch.contextWindow = n;
    }
    setError(null);
    setSaving(true);
    const saved = await update(patch);
    setSaving(false);
    if (saved) onClose();
  };

  return (
    <Modal label="Settings" onEscape={onClose} className="settings-dialog" title="Settings">
      {draft === null || settings === null ? (
        <p className="muted">Loading settings…</p>
      ) : (
        <div className="settings-body">
          <ModelSettings draft={draft} apiKeys={settings.apiKeys} overridden={settings.overridden ?? {}} onChange={change} />

          <fieldset className="settings-section">
            <legend>Context window</legend>
            <div className="field">
              <label htmlFor="settings-context-window">Context window override (tokens)</label>
              <input
                id="settings-context-window"
                inputMode="numeric"
                placeholder="the model's own window"
                value={draft.contextWindowText}
                disabled={settings.overridden?.contextWindow === true}
                aria-describedby={settings.overridden?.contextWindow ? 'settings-context-window-flag' : undefined}
                onChange={(e) => change({ contextWindowText: e.target.value })}
              />
              {settings.overridden?.contextWindow ? <FlagNote id="settings-context-window-flag" field="contextWindow" /> : null}
              <p className="muted small">
                History is summarized when a request passes 85% of this.
                {settings.contextWindow !== undefined && draft.contextWindowText.trim() === ''
                  ? ` The stored override (${settings.contextWindow}) stays until you enter another number.`
                  : ''}
              </p>
            </div>
          </fieldset>

          <RulesSettings rules={draft.rules} onChange={(rules) => change({ rules })} />
          <SubagentSettings subagents={draft.subagents} onChange={(subagents) => change({ subagents })} />

          <fieldset className="settings-section">
            <legend>Appearance</legend>
            <div className="field">
              <label htmlFor="settings-theme">Theme</label>
              <select id="settings-theme" value={draft.theme} onChange={(e) => change({ theme: e.target.value as SettingsDraft['theme'] })}>
                <option value="system">Follow the system</option>
                <option value="dark">Dark</option>
                <option value="light">Light</option>
              </select>
            </div>
          </fieldset>
        </div>
      )}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" onClick={() => void save()} disabled={saving || draft === null}>
          Save settings
        </button>
      </div>
    </Modal>
  );
}
