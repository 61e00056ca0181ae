// Settings' sections in the order they show, each named as its heading says, and what it shows
// of the draft (the settings as saved beside it, for what is set by a flag or stored already).

import type { Settings } from '../../../src-main/app/contract';
import type { SettingsDraft } from '../lib/settings-draft';
import { FlagNote } from './FlagNote';
import { HooksSettings, SkillsSettings } from './ExtensionSettings';
import { McpSettings } from './McpSettings';
import { MemoriesSettings } from './MemoriesSettings';
import { MountsSettings } from './MountsSettings';
import { ModelSettings } from './ModelSettings';
import { RulesSettings } from './RulesSettings';
import { PluginSettings } from './PluginSettings';
import { GoalSettings } from './GoalSettings';
import { ReviewerSettings } from './ReviewerSettings';
import { AgentsSettings } from './AgentsSettings';
import { SubagentSettings } from './SubagentSettings';
import { UpdateSettings } from './UpdateSettings';
import { PricesSettings, TelemetrySettings } from './UsageSettings';
import { AgentProtocolSettings } from './AgentProtocolSettings';
import { SandboxSettings } from './SandboxSettings';
import { ProvenanceSettings } from './ProvenanceSettings';
import type { SettingsSectionRef } from './SettingsNav';
import { TextField } from './TextField';

interface SectionProps {
  draft: SettingsDraft;
  settings: Settings;
  /** The open folder (what is set for it alone). */
  folder: string;
  change(patch: Partial<SettingsDraft>): void;
}

export const SETTINGS_SECTIONS: ReadonlyArray<SettingsSectionRef & { Show(props: SectionProps): React.JSX.Element }> = [
  { id: 'settings-section-model', label: 'Model', Show: ({ draft, settings, change }) => <ModelSettings draft={draft} apiKeys={settings.apiKeys} overridden={settings.overridden ?? {}} onChange={change} /> },
  { id: 'settings-section-context', label: 'Context window', Show: ContextWindowSettings },
  { id: 'settings-section-prices', label: 'Prices', Show: ({ draft, settings, change }) => (
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
  ) },
  { id: 'settings-section-approvals', label: 'Approvals', Show: ({ draft, settings, folder, change }) => (
    <fieldset className="settings-section">
      <legend>Approvals</legend>
      <RulesSettings rules={draft.rules} onChange={(rules) => change({ rules })} />
      <ReviewerSettings draft={draft} saved={settings.reviewer} folder={folder} modelInUse={settings.model} flag={settings.overridden?.reviewerChoice === true} onChange={change} />
    </fieldset>
  ) },
  { id: 'settings-section-subagents', label: 'Subagents', Show: ({ draft, change }) => <SubagentSettings subagents={draft.subagents} onChange={(subagents) => change({ subagents })} /> },
  { id: 'settings-section-goals', label: 'Goals', Show: ({ draft, settings, change }) => <GoalSettings graderModelText={draft.graderModelText} maxRoundsText={draft.maxRoundsText} candidatesBudgetText={draft.candidatesBudgetText} modelInUse={settings.model} onChange={change} /> },
  { id: 'settings-section-agents', label: 'Agents', Show: AgentsSettings },
  { id: 'settings-section-mounts', label: 'Mounts', Show: ({ draft, settings, change }) => <MountsSettings memoriesStore={draft.memoriesStore} memoriesStoreFlag={settings.overridden?.memoriesStore === true} onMemoriesStoreChange={(memoriesStore) => change({ memoriesStore })} /> },
  { id: 'settings-section-memories', label: 'Memories', Show: ({ draft, change }) => <MemoriesSettings value={draft.memories} onChange={(memories) => change({ memories })} /> },
  { id: 'settings-section-mcp', label: 'MCP servers', Show: McpSettings },
  { id: 'settings-section-skills', label: 'Skills', Show: SkillsSettings },
  { id: 'settings-section-hooks', label: 'Hooks', Show: HooksSettings },
  { id: 'settings-section-plugins', label: 'Plugins', Show: PluginSettings },
  { id: 'settings-section-telemetry', label: 'Telemetry', Show: ({ draft, change }) => (
    <TelemetrySettings endpoint={draft.otlpEndpointText} captureContent={draft.captureContent} onChange={(p) => change({ ...(p.endpoint !== undefined ? { otlpEndpointText: p.endpoint } : {}), ...(p.captureContent !== undefined ? { captureContent: p.captureContent } : {}) })} />
  ) },
  { id: 'settings-section-agent-protocol', label: 'Agent Protocol', Show: ({ draft, change }) => <AgentProtocolSettings draft={draft} onChange={change} /> },
  { id: 'settings-section-sandboxes', label: 'Sandboxes', Show: ({ draft, settings, change }) => <SandboxSettings draft={draft.sandboxesDraft} sandboxKeys={settings.sandboxKeys} onChange={(sandboxesDraft) => change({ sandboxesDraft })} /> },
  { id: 'settings-section-provenance', label: 'Provenance', Show: ({ draft, change }) => <ProvenanceSettings value={draft.provenance} onChange={(provenance) => change({ provenance })} /> },
  { id: 'settings-section-appearance', label: 'Appearance', Show: AppearanceSettings },
  { id: 'settings-section-updates', label: 'Updates', Show: UpdateSettings },
];

function ContextWindowSettings({ draft, settings, change }: SectionProps): React.JSX.Element {
  const flag = settings.overridden?.contextWindow === true;
  return (
    <fieldset className="settings-section">
      <legend>Context window</legend>
      <TextField id="settings-context-window" label="Context window override (tokens)" inputMode="numeric" placeholder="the model's own window" value={draft.contextWindowText} disabled={flag} aria-describedby={flag ? 'settings-context-window-flag' : undefined} onValue={(text) => change({ contextWindowText: text })}
        help={
          <>
            History is summarized when a request passes 85% of this.
            {settings.contextWindow !== undefined && draft.contextWindowText.trim() === '' ? ` The stored override (${settings.contextWindow}) stays until you enter another number.` : ''}
          </>
        }
      >
        {flag ? <FlagNote id="settings-context-window-flag" field="contextWindow" /> : null}
      </TextField>
    </fieldset>
  );
}

function AppearanceSettings({ draft, change }: SectionProps): React.JSX.Element {
  return (
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
  );
}
