// Settings: model and provider (keys, connection test, local servers), context window, prices,
// the budget per thread and the runs at once, approval rules and the reviewer, subagents, mounts and the memories store,
// telemetry, the Agent Protocol, theme. Edits are a draft until Save, the API key typed in too:
// `Save settings` stores it (`Save key` stores it at once); keys go to the OS keychain or the
// data folder's secrets file, never back to the window.
// Save sends only the fields the person changed here, so a save never undoes what another
// window saved meanwhile; fields not touched here follow such saves while the dialog is open.
// A save that fails keeps the dialog open with what was typed, and says why. Closed, it gives
// the keyboard back to what opened it, or to the message box when that went with the change.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { Settings } from '../../../src-main/app/contract';
import { parseModel } from '../lib/providers';
import { useSettings } from '../state/settings-context';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { Modal } from './Modal';
import { SettingsAnchor, SettingsNav } from './SettingsNav';
import { SETTINGS_SECTIONS } from './SettingsSections';
import { rebase, toDraft, type SettingsDraft } from '../lib/settings-draft';
import { settingsPatch } from '../lib/settings-patch';
import { capitalized } from '../lib/format';
import { focusMessageBox, stillFocusable } from '../lib/focus';
import { ErrorAlert } from './ErrorText';

/** How long after Settings closed the page may still be taking away what opened it. */
const WATCH_MS = 2_000;

/**
 * After Settings closed, the keyboard goes back to what opened it (the Modal does that), or,
 * when the change just saved took that away (the "No model" notice's `Open settings` goes
 * once a model is set, in a render that may come before or after the close), to the message
 * box: never to the page. Watched until the page behind is no longer inert and the keyboard
 * is on a control, for a short while.
 */
function keepFocusAfterClose(opener: HTMLElement | null): void {
  const root = document.getElementById('root');
  const check = (): void => {
    if (root?.hasAttribute('inert')) return;
    const active = document.activeElement;
    if (active !== null && active !== document.body && active.isConnected) {
      // Back on what opened Settings: it may still go with the change, so keep watching.
      if (active !== opener) stop();
      return;
    }
    const back = stillFocusable(opener);
    if (back) back.focus();
    else focusMessageBox();
    if (back === null) stop();
  };
  const watch = new MutationObserver(check);
  const timer = setTimeout(() => stop(), WATCH_MS);
  function stop(): void {
    watch.disconnect();
    clearTimeout(timer);
  }
  watch.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['inert'] });
  requestAnimationFrame(check);
}

/**
 * `section`: the label of a section to open Settings at (a budget's stop opens `Prices`);
 * the keyboard goes there too. `folder`: the open folder (what is set for it alone).
 */
export function SettingsDialog({ onClose: close, section, folder }: { onClose(): void; section?: string | undefined; folder: string }): React.JSX.Element {
  const api = useApi();
  // What opened Settings: the first render comes before the dialog takes the keyboard.
  const [opener] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));
  const onClose = useCallback(() => {
    close();
    keepFocusAfterClose(opener);
  }, [close, opener]);
  const { settings, update, replace } = useSettings();
  // `base`: the settings the draft started from (moved on when they change elsewhere).
  const base = useRef<{ source: Settings; draft: SettingsDraft } | null>(settings ? { source: settings, draft: toDraft(settings, folder) } : null);
  const [draft, setDraft] = useState<SettingsDraft | null>(() => base.current?.draft ?? null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const body = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!settings || base.current?.source === settings) return;
    const before = base.current?.draft;
    const after = toDraft(settings, folder);
    base.current = { source: settings, draft: after };
    setDraft((d) => (d === null || before === undefined ? after : rebase(d, before, after)));
  }, [settings, folder]);

  const change = (patch: Partial<SettingsDraft>): void => setDraft((d) => (d ? { ...d, ...patch } : d));

  const save = async (): Promise<void> => {
    if (!draft || !base.current) return;
    const patch = settingsPatch(draft, base.current.draft, settings, folder);
    if ('error' in patch) {
      setError(patch.error);
      return;
    }
    // The key typed in is saved too, for the provider shown (whatever button stored keys before).
    const key = draft.apiKeyText.trim();
    const keyProvider = parseModel(draft.model).provider ?? draft.keyProvider;
    setError(null);
    if (Object.keys(patch).length === 0 && key === '') {
      onClose();
      return;
    }
    setSaving(true);
    let keySaved = false;
    try {
      if (key !== '') {
        replace(await api.call('settings.setApiKey', { provider: keyProvider, key }));
        keySaved = true;
        change({ apiKeyText: '' });
      }
      if (Object.keys(patch).length > 0) await update(patch);
    } catch (err) {
      // Not saved: the dialog stays open with what was typed.
      setError(`${capitalized(errorMessage(err))}. ${keySaved ? 'The API key was saved; the other settings were not.' : 'Nothing was saved.'}`);
      return;
    } finally {
      setSaving(false);
    }
    onClose();
  };

  return (
    <Modal label="Settings" onEscape={onClose} className="settings-dialog" title="Settings">
      {draft === null || settings === null ? (
        <p className="muted">Loading settings…</p>
      ) : (
        <div className="settings-layout">
          <SettingsNav sections={SETTINGS_SECTIONS} scroller={body} initial={SETTINGS_SECTIONS.find((s) => s.label === section)?.id} />
          <div className="settings-body" ref={body}>
            {SETTINGS_SECTIONS.map((s) => (
              <SettingsAnchor key={s.id} section={s}>
                <s.Show draft={draft} settings={settings} folder={folder} change={change} />
              </SettingsAnchor>
            ))}
          </div>
        </div>
      )}
      <ErrorAlert error={error} />
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        {/* Not `disabled` while saving: a disabled button drops the keyboard to the page. */}
        <button type="button" className="btn btn-primary" onClick={() => !saving && void save()} aria-disabled={saving || undefined} disabled={draft === null}>
          Save settings
        </button>
      </div>
    </Modal>
  );
}
