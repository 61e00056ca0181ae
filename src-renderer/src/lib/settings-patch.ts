// What `Save settings` sends: only the fields the person changed here (so a save never undoes
// what another window saved meanwhile), the fields typed as text each read only when changed.

import { memoriesStoreTextError, type Params, type Settings } from '../../../src-main/app/contract';
import { agentProtocolFromDraft } from './agent-protocol-settings';
import { goalsFromDraft } from './goal-settings';
import { modelsFromDraft } from './subagent-model-settings';
import { reviewerFromDraft } from './reviewer-settings';
import { sameSandboxesDraft, sandboxesFromDraft } from './sandbox-settings';
import { budgetFromText, rowsToPrices, runsFromText, sameRows, telemetryFromDraft } from './usage-settings';
import type { SettingsDraft } from './settings-draft';

type Patch = Params<'settings.update'>;
type TextKey = { [K in keyof SettingsDraft]-?: SettingsDraft[K] extends string ? K : never }[keyof SettingsDraft];

/** A reading of typed text under the settings' own key, or what is wrong with it. */
function renamed<T extends object>(read: T | { error: string }, rename: (value: T) => Patch): Patch | { error: string } {
  return 'error' in read ? read : rename(read);
}

/** From `from` (the draft the dialog started from) to `draft`; or the first typed field that is wrong, and then nothing is saved. */
export function settingsPatch(draft: SettingsDraft, from: SettingsDraft, settings: Settings | null, folder: string): Patch | { error: string } {
  const flags = settings?.overridden ?? {};
  // A field a command-line flag sets is not the person's to save (the app refuses it too).
  const patch: Patch = {};
  if (!flags.model && draft.model.trim() !== from.model) patch.model = draft.model.trim();
  if (!flags.baseUrl && draft.baseUrl.trim() !== from.baseUrl) patch.baseUrl = draft.baseUrl.trim();
  if (draft.rules !== from.rules) patch.rules = draft.rules;
  if (draft.subagents !== from.subagents) patch.subagents = draft.subagents;
  if (draft.theme !== from.theme) patch.theme = draft.theme;
  if (draft.mediaInput !== from.mediaInput) patch.mediaInput = draft.mediaInput ?? {};
  if (draft.provenance !== from.provenance) patch.provenance = draft.provenance ?? {};
  if (draft.memories !== from.memories) patch.memories = draft.memories ?? {};
  const differs = (...keys: Array<keyof SettingsDraft>): boolean => keys.some((k) => draft[k] !== from[k]);
  const retyped = (...keys: TextKey[]): boolean => keys.some((k) => draft[k].trim() !== from[k].trim());
  const windowText = draft.contextWindowText.trim();
  const windowSize = Number(windowText);
  const typed: Array<[changed: boolean, read: () => Patch | { error: string }]> = [
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
    [retyped('budgetText'), () => renamed(budgetFromText(draft.budgetText), (r) => ({ threadBudgetUsd: r.budget }))],
    [retyped('runsText'), () => renamed(runsFromText(draft.runsText), (r) => ({ maxConcurrentRuns: r.runs }))],
    [retyped('otlpEndpointText') || differs('captureContent'), () => telemetryFromDraft(draft.otlpEndpointText, draft.captureContent)],
    [differs('protocolListenText', 'protocolAllowRemote', 'protocolOriginsText', 'protocolFolderText'), () => agentProtocolFromDraft(draft)],
    [retyped('graderModelText', 'maxRoundsText', 'candidatesBudgetText'), () => goalsFromDraft(draft.graderModelText, draft.maxRoundsText, draft.candidatesBudgetText)],
    [retyped('subagentModelText'), () => modelsFromDraft(draft.subagentModelText, settings?.models)],
    // Saved with review on, review resumes where its breaker tripped (SPEC §23): sent even unchanged.
    [!flags.reviewerChoice && (draft.reviewerOn || differs('reviewerOn', 'reviewerScope') || retyped('reviewerModelText', 'reviewerTimeoutText')), () => reviewerFromDraft(draft, settings?.reviewer, folder)],
    [!sameSandboxesDraft(draft.sandboxesDraft, from.sandboxesDraft), () => sandboxesFromDraft(draft.sandboxesDraft)],
  ];
  for (const [changed, read] of typed) {
    const value = changed ? read() : {};
    if ('error' in value) return value;
    Object.assign(patch, value);
  }
  return patch;
}
