// The one store of a data folder's own secrets in this process (its `secrets.json`): the
// agent host holds it, and every client's MCP hub keeps its sign-in tokens there (SPEC §10),
// so a sign-in made in one client — the desktop app, a web window, `run`, `acp` — is used by
// all of them. The desktop app's API keys stay in its keychain-encrypted file; its MCP tokens
// do not, because only the desktop app can open that file and `run`/`acp` must sign in
// without it.
import { resolve } from 'node:path';
import { FileSecretStore } from './file-secret-store';

interface Held {
  store: FileSecretStore;
  holders: number;
}

const held = new Map<string, Held>();

export interface DataFolderSecrets {
  store: FileSecretStore;
  /** Lets go of it; the file is closed when its last holder lets go. */
  release(): void;
}

/** The data folder's store, shared by every holder in this process. */
export function holdDataFolderSecrets(dataDir: string): DataFolderSecrets {
  const key = resolve(dataDir);
  let entry = held.get(key);
  if (entry === undefined) {
    entry = { store: new FileSecretStore(key), holders: 0 };
    held.set(key, entry);
  }
  entry.holders += 1;
  const current = entry;
  let released = false;
  return {
    store: current.store,
    release() {
      if (released) return;
      released = true;
      current.holders -= 1;
      if (current.holders === 0 && held.get(key) === current) {
        held.delete(key);
        current.store.close();
      }
    },
  };
}
