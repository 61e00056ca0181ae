// Settings as the dialog edits them: a draft of the settings with the fields as typed, and how
// a draft follows a save made elsewhere while the dialog is open.

import type { Settings } from '../../../src-main/app/contract';
import { parseModel, type Provider } from './providers';
import { pricesToRows, type PriceRow } from './usage-settings';
import { agentProtocolDraft, type AgentProtocolDraft } from './agent-protocol-settings';
import { sandboxesDraft, type SandboxesDraft } from './sandbox-settings';
import { goalsDraft } from './goal-settings';
import { reviewerDraft, type ReviewerDraft } from './reviewer-settings';

export type SettingsDraft = Omit<Settings, 'apiKeys' | 'sandboxKeys' | 'overridden'> & {
  contextWindowText: string;
  /** An API key typed in and not stored yet (for the provider shown). */
  apiKeyText: string;
  /** The provider chosen while the model has none yet (the key field is for it). */
  keyProvider: Provider;
  /** Settings › Prices as typed: a row a model, and the budget per thread. */
  priceRows: PriceRow[];
  budgetText: string;
  /** Settings › Prices › Runs at once as typed (empty: the default). */
  runsText: string;
  /** Settings › Telemetry as typed. */
  otlpEndpointText: string;
  captureContent: boolean;
  /** Settings › Sandboxes as typed. */
  sandboxesDraft: SandboxesDraft;
  /** Settings › Goals as typed (empty: the thread's model; the default rounds). */
  graderModelText: string;
  maxRoundsText: string;
  candidatesBudgetText: string;
  /** Settings › Model › Subagent model as typed (empty: the thread's model). */
  subagentModelText: string;
} & AgentProtocolDraft &
  ReviewerDraft;

/** `folder`: the open folder (its own reviewer entry is what the dialog edits, when it has one). */
export function toDraft(settings: Settings, folder?: string): SettingsDraft {
  const { apiKeys: _keys, sandboxKeys: _sandboxKeys, overridden: _flags, ...rest } = settings;
  return {
    ...rest,
    contextWindowText: settings.contextWindow !== undefined ? String(settings.contextWindow) : '',
    apiKeyText: '',
    keyProvider: parseModel(settings.model).provider ?? 'anthropic',
    priceRows: pricesToRows(settings.prices),
    budgetText: settings.threadBudgetUsd !== undefined ? String(settings.threadBudgetUsd) : '',
    runsText: settings.maxConcurrentRuns !== undefined ? String(settings.maxConcurrentRuns) : '',
    otlpEndpointText: settings.telemetry?.otlpEndpoint ?? '',
    captureContent: settings.telemetry?.captureContent === true,
    sandboxesDraft: sandboxesDraft(settings.sandboxes),
    ...goalsDraft(settings.goals),
    subagentModelText: settings.models?.subagent ?? '',
    ...agentProtocolDraft(settings.agentProtocol),
    ...reviewerDraft(settings.reviewer, folder),
  };
}

const FIELDS = ['model', 'baseUrl', 'rules', 'subagents', 'theme', 'contextWindowText', 'mediaInput', 'memoriesStore', 'priceRows', 'budgetText', 'runsText', 'otlpEndpointText', 'captureContent', 'protocolListenText', 'protocolAllowRemote', 'protocolOriginsText', 'protocolFolderText', 'sandboxesDraft', 'graderModelText', 'maxRoundsText', 'candidatesBudgetText', 'subagentModelText', 'reviewerOn', 'reviewerModelText', 'reviewerTimeoutText', 'reviewerScope', 'provenance', 'memories'] as const;

/** The draft with every field the person left alone moved from `before` to `after`. */
export function rebase(draft: SettingsDraft, before: SettingsDraft, after: SettingsDraft): SettingsDraft {
  const next = { ...draft };
  for (const field of FIELDS) if (Object.is(draft[field], before[field])) (next as Record<string, unknown>)[field] = after[field];
  if (next.contextWindowText === after.contextWindowText) next.contextWindow = after.contextWindow;
  return next;
}
