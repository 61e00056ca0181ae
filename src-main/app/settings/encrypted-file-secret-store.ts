// Encrypted secrets in a JSON file: values are ciphertext (base64) from a SecretCipher,
// which on the desktop is Electron safeStorage (host/electron/secrets.ts), asked over the
// agent host's socket when the store is the host's (app/host/desktop-clients.ts).
// The file is a JsonFileStore: an unreadable one is kept aside and told (never overwritten
// from an empty state), each entry is checked on its own, and saves from several processes
// merge under its lock.

import { z } from 'zod';
import type { SecretStore } from '../base/secret-store';
import { fieldsShape, JsonFileStore, type JsonFileProblem } from '../../core/config/json-file-store';

/**
 * Chromium's OSCrypt on Linux prefixes what it encrypts with the kind of key: `v11` for a key
 * kept by the keyring (GNOME Keyring, KWallet), `v10` for its built-in, hard-coded fallback
 * key, which decrypts on any machine. The async API falls back to it silently, whatever the
 * (sync) selected backend says, so the ciphertext itself is what is checked.
 */
const LINUX_BUILT_IN_KEY_PREFIX = 'v10';

const BUILT_IN_KEY_REASON =
  'no OS keyring (GNOME Keyring, KWallet) is unlocked on this Linux desktop, so Electron would encrypt with Chromium\'s built-in key, which anyone can decrypt; start a keyring, or set the provider\'s API key variable in the environment instead';

/** Undefined when `data` (safeStorage's ciphertext on `platform`) was made with a key of the OS keychain, else why not. */
export function keychainKeyProblem(platform: string, data: Buffer): string | undefined {
  return platform === 'linux' && data.subarray(0, LINUX_BUILT_IN_KEY_PREFIX.length).toString('latin1') === LINUX_BUILT_IN_KEY_PREFIX ? BUILT_IN_KEY_REASON : undefined;
}

export interface SecretCipher {
  /** Undefined when encryption is usable, else the reason it is not (shown to the person). */
  unavailableReason(): Promise<string | undefined>;
  encrypt(plain: string): Promise<Buffer>;
  /** `reEncrypt`: the key was rotated or a better one is there now; the value should be encrypted anew. */
  decrypt(data: Buffer): Promise<{ plain: string; reEncrypt: boolean }>;
  /** Undefined when `data` was made with a key of the OS keychain, else why it was not (it is then refused). */
  insecureReason(data: Buffer): string | undefined;
}

const secretFileShape = fieldsShape({
  version: z.literal(1).optional(),
  secrets: z.record(z.string(), z.string()).optional(),
});

export class EncryptedFileSecretStore implements SecretStore {
  private readonly store: JsonFileStore<ReturnType<typeof secretFileShape.check>['value']>;
  private readonly reEncryptWarned = new Set<string>();

  constructor(
    file: string,
    private readonly cipher: SecretCipher,
  ) {
    this.store = new JsonFileStore({ path: file, shape: secretFileShape, mode: 0o600, defaultsText: 'no API key is stored until you save one again' });
  }

  async get(name: string): Promise<string | undefined> {
    const secrets = this.store.current().secrets ?? {};
    if (!Object.hasOwn(secrets, name)) return undefined;
    const stored = secrets[name]!;
    const data = Buffer.from(stored, 'base64');
    let decrypted: { plain: string; reEncrypt: boolean };
    try {
      decrypted = await this.cipher.decrypt(data);
    } catch (err) {
      // A changed or reset keychain: the value is lost, not the whole store.
      console.warn(`deepdesk: could not decrypt the stored secret '${name}': ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
    // Asked to (a rotated key), or stored under a key that was not the keychain's (before the refusal below): encrypt it anew.
    if (decrypted.reEncrypt || this.cipher.insecureReason(data) !== undefined) await this.reEncrypt(name, stored, decrypted.plain);
    return decrypted.plain;
  }

  async set(name: string, value: string): Promise<void> {
    const encrypted = await this.encrypt(name, value);
    this.store.update((current) => ({ ...current, version: 1, secrets: { ...current.secrets, [name]: encrypted } }));
  }

  /** Base64 ciphertext under the keychain's key; throws, saying why, when there is no such key. */
  private async encrypt(name: string, value: string): Promise<string> {
    const reason = await this.cipher.unavailableReason();
    if (reason !== undefined) throw new Error(`cannot store '${name}' securely: ${reason}`);
    const data = await this.cipher.encrypt(value);
    const insecure = this.cipher.insecureReason(data);
    if (insecure !== undefined) throw new Error(`cannot store '${name}' securely: ${insecure}`);
    return data.toString('base64');
  }

  private async reEncrypt(name: string, stored: string, plain: string): Promise<void> {
    let encrypted: string;
    try {
      encrypted = await this.encrypt(name, plain);
    } catch (err) {
      if (!this.reEncryptWarned.has(name)) console.warn(`deepdesk: the stored secret '${name}' should be encrypted anew but could not be: ${err instanceof Error ? err.message : String(err)}`);
      this.reEncryptWarned.add(name);
      return;
    }
    // Only if nobody changed it meanwhile (another window, another process).
    this.store.update((current) =>
      current.secrets?.[name] === stored ? { ...current, version: 1, secrets: { ...current.secrets, [name]: encrypted } } : current,
    );
  }

  async delete(name: string): Promise<void> {
    this.store.update((current) => {
      if (!current.secrets || !Object.hasOwn(current.secrets, name)) return current;
      return { ...current, secrets: Object.fromEntries(Object.entries(current.secrets).filter(([key]) => key !== name)) };
    });
  }

  onChange(listener: () => void): () => void {
    return this.store.onChange(() => listener());
  }

  onProblem(listener: (problem: JsonFileProblem) => void): () => void {
    return this.store.onProblem(listener);
  }
}
