// The approval rules a person saved in Settings apply to `deepdesk run` too: their deny
// rules beat every mode wherever the agent runs on that data folder. Read once; the
// defaults follow them (first match wins). So does the media input set per model.
import { DEFAULT_RULES, type PermissionRule } from '../core/agent/permissions/rules';
import type { MediaInputOverrides } from '../core/media/override';
import type { SecretStore } from '../app/secret-store';
import { SettingsService } from '../app/settings/settings-service';

/** No keys are read here: only the rules of settings.json. */
const NO_SECRETS: SecretStore = {
  get: async () => undefined,
  set: async () => undefined,
  delete: async () => undefined,
};

export function personRules(dataDir: string, env: NodeJS.ProcessEnv, warn: (line: string) => void): PermissionRule[] {
  const settings = new SettingsService(dataDir, NO_SECRETS, env, { onProblem: (problem) => warn(problem.message) });
  try {
    return [...(settings.raw().rules as PermissionRule[]), ...DEFAULT_RULES];
  } finally {
    settings.close();
  }
}

/** The media input set per model in Settings (problems with the file are told by personRules). */
export function savedMediaInput(dataDir: string, env: NodeJS.ProcessEnv): MediaInputOverrides | undefined {
  const settings = new SettingsService(dataDir, NO_SECRETS, env);
  try {
    return settings.raw().mediaInput;
  } finally {
    settings.close();
  }
}
