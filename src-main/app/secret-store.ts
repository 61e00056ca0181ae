// Where API keys live. The desktop app keeps them with the OS keychain (Electron
// safeStorage); `deepdesk serve` and the CLI use a private file in the data folder.

export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}
