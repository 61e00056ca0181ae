// Where API keys live. The desktop app keeps them with the OS keychain (Electron
// safeStorage); `deepdesk serve` and the CLI use a private file in the data folder.

import type { JsonFileProblem } from '../../core/config/json-file-store';

export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  /** Called when the stored secrets changed (here or in another process); returns unsubscribe. */
  onChange?(listener: () => void): () => void;
  /** Problems with the store's file, earlier ones at once (never a secret in them). */
  onProblem?(listener: (problem: JsonFileProblem) => void): () => void;
}
