// The approval rules a person saved in Settings apply to `deepdesk run` too: their deny
// rules beat every mode wherever the agent runs on that data folder. Read once; the
// defaults follow them (first match wins). So does the media input set per model.
import { DEFAULT_RULES, type PermissionRule } from '../../core/agent/permissions/rules';
import type { MediaInputOverrides } from '../../core/media/override';
import type { PriceOverride } from '../../core/models/model-info';
import type { TelemetrySettings } from '../contract/usage';
import type { SecretStore } from '../secret-store';
import { SettingsService } from '../settings/settings-service';

/** No keys are read here: only the rules of settings.json. */
const NO_SECRETS: SecretStore = {
  get: async () => undefined,
  set: async () => undefined,
  delete: async () => undefined,
};

export function personRules(dataDir: string, warn: (line: string) => void): PermissionRule[] {
  const book = personRuleBook(dataDir, warn);
  try {
    return book.rules();
  } finally {
    book.close();
  }
}

/** What Settings set for models and runs that a headless session honours too. */
export interface SavedRunSettings {
  mediaInput?: MediaInputOverrides;
  prices?: Readonly<Record<string, PriceOverride>>;
  threadBudgetUsd?: number;
  maxConcurrentRuns?: number;
  telemetry?: TelemetrySettings;
}

/** The media input and prices set per model, the budget per thread and where traces go (problems with the file are told by personRules). */
export function savedRunSettings(dataDir: string): SavedRunSettings {
  const settings = new SettingsService(dataDir, NO_SECRETS);
  try {
    const { mediaInput, prices, threadBudgetUsd, maxConcurrentRuns, telemetry } = settings.raw();
    return {
      ...(mediaInput ? { mediaInput } : {}),
      ...(prices ? { prices } : {}),
      ...(threadBudgetUsd !== undefined ? { threadBudgetUsd } : {}),
      ...(maxConcurrentRuns !== undefined ? { maxConcurrentRuns } : {}),
      ...(telemetry ? { telemetry } : {}),
    };
  } finally {
    settings.close();
  }
}

/**
 * The person's rules as they are in settings.json now (read on every call, so an "Always
 * allow" saved here or in the window applies at once), followed by the defaults; `add`
 * saves a rule where the window's "Always allow" does.
 */
export function personRuleBook(dataDir: string, warn: (line: string) => void): { rules(): PermissionRule[]; add(rule: PermissionRule): Promise<void>; close(): void } {
  const settings = new SettingsService(dataDir, NO_SECRETS, { onProblem: (problem) => warn(problem.message) });
  return {
    rules: () => [...(settings.raw().rules as PermissionRule[]), ...DEFAULT_RULES],
    add: async (rule) => void (await settings.addRule(rule)),
    close: () => settings.close(),
  };
}
