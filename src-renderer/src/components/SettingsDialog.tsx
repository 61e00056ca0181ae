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
import { memoriesStoreTextError, type Params, type Settings } from '../../../src-main/app/contract';
import { parseModel } from '../lib/providers';
import { useSettings } from '../state/settings-context';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { Modal } from './Modal';
import { FlagNote } from './FlagNote';
import { HooksSettings, SkillsSettings } from './ExtensionSettings';
import { McpSettings } from './McpSettings';
import { MountsSettings } from './MountsSettings';
import { ModelSettings } from './ModelSettings';
import { RulesSettings } from './RulesSettings';
import { PluginSettings } from './PluginSettings';
import { SettingsAnchor, SettingsNav, type SettingsSectionRef } from './SettingsNav';
import { GoalSettings } from './GoalSettings';
import { ReviewerSettings } from './ReviewerSettings';
import { reviewerFromDraft } from '../lib/reviewer-settings';
import { AgentsSettings } from './AgentsSettings';
import { goalsFromDraft } from '../lib/goal-settings';
import { SubagentSettings } from './SubagentSettings';
import { UpdateSettings } from './UpdateSettings';
import { PricesSettings, TelemetrySettings } from './UsageSettings';
import { AgentProtocolSettings } from './AgentProtocolSettings';
import { SandboxSettings } from './SandboxSettings';
import { ProvenanceSettings } from './ProvenanceSettings';
import { sameSandboxesDraft, sandboxesFromDraft } from '../lib/sandbox-settings';
import { agentProtocolFromDraft } from '../lib/agent-protocol-settings';
import { budgetFromText, rowsToPrices, runsFromText, sameRows, telemetryFromDraft } from '../lib/usage-settings';
import { rebase, toDraft, type SettingsDraft } from '../lib/settings-draft';
import { capitalized } from '../lib/format';
import { focusMessageBox, stillFocusable } from '../lib/focus';
import { ErrorAlert } from './ErrorText';

/** The sections in the order they show, each named as its heading says. */
const SECTIONS = {
  model: { id: 'settings-section-model', label: 'Model' },
  context: { id: 'settings-section-context', label: 'Context window' },
  prices: { id: 'settings-section-prices', label: 'Prices' },
  approvals: { id: 'settings-section-approvals', label: 'Approvals' },
  subagents: { id: 'settings-section-subagents', label: 'Subagents' },
  goals: { id: 'settings-section-goals', label: 'Goals' },
  agents: { id: 'settings-section-agents', label: 'Agents' },
  mounts: { id: 'settings-section-mounts', label: 'Mounts' },
  mcp: { id: 'settings-section-mcp', label: 'MCP servers' },
  skills: { id: 'settings-section-skills', label: 'Skills' },
  hooks: { id: 'settings-section-hooks', label: 'Hooks' },
  plugins: { id: 'settings-section-plugins', label: 'Plugins' },
  telemetry: { id: 'settings-section-telemetry', label: 'Telemetry' },
  agentProtocol: { id: 'settings-section-agent-protocol', label: 'Agent Protocol' },
  sandboxes: { id: 'settings-section-sandboxes', label: 'Sandboxes' },
  provenance: { id: 'settings-section-provenance', label: 'Provenance' },
  appearance: { id: 'settings-section-appearance', label: 'Appearance' },
  updates: { id: 'settings-section-updates', label: 'Updates' },
} as const satisfies Record<string, SettingsSectionRef>;
const SECTION_LIST: readonly SettingsSectionRef[] = Object.values(SECTIONS);

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

/** A reading of typed text under the settings' own key, or what is wrong with it. */
function renamed<T extends object>(read: T | { error: string }, rename: (value: T) => Params<'settings.update'>): Params<'settings.update'> | { error: string } {
  return 'error' in read ? read : rename(read);
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
    const from = base.current.draft;
    const flags = settings?.overridden ?? {};
    // Only what changed here; a field a command-line flag sets is not the person's to save
    // (the app refuses it too).
    const patch: Params<'settings.update'> = {};
    if (!flags.model && draft.model.trim() !== from.model) patch.model = draft.model.trim();
    if (!flags.baseUrl && draft.baseUrl.trim() !== from.baseUrl) patch.baseUrl = draft.baseUrl.trim();
    if (draft.rules !== from.rules) patch.rules = draft.rules;
    if (draft.subagents !== from.subagents) patch.subagents = draft.subagents;
    if (draft.theme !== from.theme) patch.theme = draft.theme;
    if (draft.mediaInput !== from.mediaInput) patch.mediaInput = draft.mediaInput ?? {};
    if (draft.provenance !== from.provenance) patch.provenance = draft.provenance ?? {};
    const windowText = draft.contextWindowText.trim();
    const windowSize = Number(windowText);
    // The fields typed as text, each read only when changed here: the first one wrong is said, and nothing is saved.
    const typed: Array<[changed: boolean, read: () => Params<'settings.update'> | { error: string }]> = [
      [
        !flags.memoriesStore && draft.memoriesStore.trim() !== from.memoriesStore,
        () => {
          const why = memoriesStoreTextError(draft.memoriesStore);
          return why !== null ? { error: `The memories store: ${why}.` } : { memoriesStore: draft.memoriesStore.trim() || 'sqlite' };
        },
      ],
      [
        windowText !== '' && windowText !== from.contextWindowText && !flags.contextWindow,
        () => (Number.isInteger(windowSize) && windowSize > 0 ? { contextWindow: windowSize } : { error: 'The context window must be a whole number of tokens.' }),
      ],
      [!sameRows(draft.priceRows, from.priceRows), () => rowsToPrices(draft.priceRows)],
      [draft.budgetText.trim() !== from.budgetText.trim(), () => renamed(budgetFromText(draft.budgetText), (r) => ({ threadBudgetUsd: r.budget }))],
      [draft.runsText.trim() !== from.runsText.trim(), () => renamed(runsFromText(draft.runsText), (r) => ({ maxConcurrentRuns: r.runs }))],
      [draft.otlpEndpointText.trim() !== from.otlpEndpointText.trim() || draft.captureContent !== from.captureContent, () => telemetryFromDraft(draft.otlpEndpointText, draft.captureContent)],
      [
        draft.protocolListenText !== from.protocolListenText || draft.protocolAllowRemote !== from.protocolAllowRemote || draft.protocolOriginsText !== from.protocolOriginsText || draft.protocolFolderText !== from.protocolFolderText,
        () => agentProtocolFromDraft(draft),
      ],
      [
        draft.graderModelText.trim() !== from.graderModelText.trim() || draft.maxRoundsText.trim() !== from.maxRoundsText.trim() || draft.candidatesBudgetText.trim() !== from.candidatesBudgetText.trim(),
        () => goalsFromDraft(draft.graderModelText, draft.maxRoundsText, draft.candidatesBudgetText),
      ],
      [
        !flags.reviewerChoice &&
          (draft.reviewerOn !== from.reviewerOn || draft.reviewerScope !== from.reviewerScope || draft.reviewerModelText.trim() !== from.reviewerModelText.trim() || draft.reviewerTimeoutText.trim() !== from.reviewerTimeoutText.trim()),
        () => reviewerFromDraft(draft, settings?.reviewer, folder),
      ],
      [!sameSandboxesDraft(draft.sandboxesDraft, from.sandboxesDraft), () => sandboxesFromDraft(draft.sandboxesDraft)],
    ];
    for (const [changed, read] of typed) {
      const value = changed ? read() : {};
      if ('error' in value) {
        setError(value.error);
        return;
      }
      Object.assign(patch, value);
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
      const why = errorMessage(err);
      setError(`${capitalized(why)}. ${keySaved ? 'The API key was saved; the other settings were not.' : 'Nothing was saved.'}`);
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
          <SettingsNav sections={SECTION_LIST} scroller={body} initial={SECTION_LIST.find((s) => s.label === section)?.id} />
          <div className="settings-body" ref={body}>
            <SettingsAnchor section={SECTIONS.model}>
              <ModelSettings draft={draft} apiKeys={settings.apiKeys} overridden={settings.overridden ?? {}} onChange={change} />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.context}>
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
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.prices}>
              <PricesSettings
                modelInUse={settings.model}
                rows={draft.priceRows}
                onRowsChange={(priceRows) => change({ priceRows })}
                budgetText={draft.budgetText}
                onBudgetChange={(budgetText) => change({ budgetText })}
                savedBudget={settings.threadBudgetUsd}
                runsText={draft.runsText}
                onRunsChange={(runsText) => change({ runsText })}
                savedRuns={settings.maxConcurrentRuns}
              />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.approvals}>
              <fieldset className="settings-section">
                <legend>Approvals</legend>
                <RulesSettings rules={draft.rules} onChange={(rules) => change({ rules })} />
                <ReviewerSettings draft={draft} saved={settings.reviewer} folder={folder} modelInUse={settings.model} flag={settings.overridden?.reviewerChoice === true} onChange={change} />
              </fieldset>
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.subagents}>
              <SubagentSettings subagents={draft.subagents} onChange={(subagents) => change({ subagents })} />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.goals}>
              <GoalSettings graderModelText={draft.graderModelText} maxRoundsText={draft.maxRoundsText} candidatesBudgetText={draft.candidatesBudgetText} modelInUse={settings.model} onChange={change} />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.agents}>
              <AgentsSettings />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.mounts}>
              <MountsSettings
                memoriesStore={draft.memoriesStore}
                memoriesStoreFlag={settings.overridden?.memoriesStore === true}
                onMemoriesStoreChange={(memoriesStore) => change({ memoriesStore })}
              />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.mcp}>
              <McpSettings />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.skills}>
              <SkillsSettings />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.hooks}>
              <HooksSettings />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.plugins}>
              <PluginSettings />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.telemetry}>
              <TelemetrySettings
                endpoint={draft.otlpEndpointText}
                captureContent={draft.captureContent}
                onChange={(p) => change({ ...(p.endpoint !== undefined ? { otlpEndpointText: p.endpoint } : {}), ...(p.captureContent !== undefined ? { captureContent: p.captureContent } : {}) })}
              />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.agentProtocol}>
              <AgentProtocolSettings draft={draft} onChange={change} />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.sandboxes}>
              <SandboxSettings draft={draft.sandboxesDraft} sandboxKeys={settings.sandboxKeys} onChange={(sandboxesDraft) => change({ sandboxesDraft })} />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.provenance}>
              <ProvenanceSettings value={draft.provenance} onChange={(provenance) => change({ provenance })} />
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.appearance}>
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
            </SettingsAnchor>
            <SettingsAnchor section={SECTIONS.updates}>
              <UpdateSettings />
            </SettingsAnchor>
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
