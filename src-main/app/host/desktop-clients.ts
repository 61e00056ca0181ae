// The desktop app's windows in the agent host (SPEC §16): what only the desktop app can do is
// asked of it over the socket (protocol.ts AskFrame) — its keychain (Electron safeStorage,
// which a plain-Node host cannot open) and the person's browser. The keys stay where the
// desktop app keeps them, encrypted in its own file; the host reads and writes that file and
// asks the desktop app to encrypt and decrypt. What it answers is checked here.

import { z } from 'zod';
import type { SecretStore } from '../base/secret-store';
import { EncryptedFileSecretStore, keychainKeyProblem, type SecretCipher } from '../settings/encrypted-file-secret-store';
import type { HostConnection } from '../base/host-service';

/** What a desktop window says of itself in `window.open`. */
export const desktopWindowParams = z.object({
  /** Its secrets file (Electron's userData/secrets.json). */
  secretsFile: z.string().min(1),
  /** Its platform: how its keychain's ciphertext tells a built-in key (Linux). */
  platform: z.string().min(1),
});
export type DesktopWindowParams = z.output<typeof desktopWindowParams>;

/** The asks a desktop client answers (host/electron/desktop-answers.ts). */
export const DESKTOP_ASKS = {
  unavailable: 'keychain.unavailable',
  encrypt: 'keychain.encrypt',
  decrypt: 'keychain.decrypt',
  pickFolder: 'dialog.pickFolder',
  openExternal: 'shell.openExternal',
} as const;

const unavailableAnswer = z.object({ reason: z.string().optional() });
const encryptAnswer = z.object({ data: z.string() });
const decryptAnswer = z.object({ plain: z.string(), reEncrypt: z.boolean() });
const pickFolderAnswer = z.object({ folder: z.string().min(1).nullable() });

export class DesktopClients {
  /** Connected desktop windows, the latest last: the one asked. */
  private readonly connections: HostConnection[] = [];
  private readonly stores = new Map<string, EncryptedFileSecretStore>();

  add(connection: HostConnection): void {
    this.connections.push(connection);
    connection.onClose(() => {
      const at = this.connections.indexOf(connection);
      if (at >= 0) this.connections.splice(at, 1);
    });
  }

  /** The desktop app's keys: its file, encrypted and decrypted by its keychain, one store per file. */
  secrets(window: DesktopWindowParams): SecretStore {
    const key = `${window.platform}\0${window.secretsFile}`;
    let store = this.stores.get(key);
    if (store === undefined) {
      store = new EncryptedFileSecretStore(window.secretsFile, this.cipher(window.platform));
      this.stores.set(key, store);
    }
    return store;
  }

  /** Opens an address in the person's browser, through the desktop app. */
  async openExternal(url: string): Promise<void> {
    await this.ask(DESKTOP_ASKS.openExternal, { url });
  }

  /** The folder the person picks in this window's native dialog; null when cancelled. */
  static async pickFolder(connection: HostConnection): Promise<string | null> {
    return pickFolderAnswer.parse(await connection.ask(DESKTOP_ASKS.pickFolder)).folder;
  }

  private cipher(platform: string): SecretCipher {
    return {
      unavailableReason: async () => unavailableAnswer.parse(await this.ask(DESKTOP_ASKS.unavailable)).reason,
      encrypt: async (plain) => Buffer.from(encryptAnswer.parse(await this.ask(DESKTOP_ASKS.encrypt, { plain })).data, 'base64'),
      decrypt: async (data) => decryptAnswer.parse(await this.ask(DESKTOP_ASKS.decrypt, { data: data.toString('base64') })),
      // Checked here too, on what came back: a key the keychain did not make is never used.
      insecureReason: (data) => keychainKeyProblem(platform, data),
    };
  }

  private ask(method: string, params?: unknown): Promise<unknown> {
    const connection = this.connections.at(-1);
    if (connection === undefined) return Promise.reject(new Error('the desktop app is not open, and only it can open its keychain'));
    return connection.ask(method, params);
  }
}
