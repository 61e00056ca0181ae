// Encrypted secrets in a JSON file: values are ciphertext (base64) from a SecretCipher,
// which on the desktop is Electron safeStorage (secrets.ts). Node-only so it can be tested.
// The file is a JsonFileStore: an unreadable one is kept aside and told (never overwritten
// from an empty state), each entry is checked on its own, and saves from several processes
// merge under its lock.

import { z } from 'zod';
import type { SecretStore } from '../../app/secret-store';
import { fieldsShape, JsonFileStore, type JsonFileProblem } from '../../core/config/json-file-store';

export interface SecretCipher {
  /** Undefined when encryption is usable, else the reason it is not (shown to the person). */
  unavailableReason(): Promise<string | undefined>;
  encrypt(plain: string): Promise<Buffer>;
  decrypt(data: Buffer): Promise<string>;
}

const secretFileShape = fieldsShape({
  version: z.literal(1).optional(),
  secrets: z.record(z.string(), z.string()).optional(),
});

export class EncryptedFileSecretStore implements SecretStore {
  private readonly store: JsonFileStore<ReturnType<typeof secretFileShape.check>['value']>;

  constructor(
    file: string,
    private readonly cipher: SecretCipher,
  ) {
    this.store = new JsonFileStore({ path: file, shape: secretFileShape, mode: 0o600, defaultsText: 'no API key is stored until you save one again' });
  }

  async get(name: string): Promise<string | undefined> {
    const secrets = this.store.current().secrets ?? {};
    if (!Object.hasOwn(secrets, name)) return undefined;
    try {
      return await this.cipher.decrypt(Buffer.from(secrets[name]!, 'base64'));
    } catch (err) {
      // A changed or reset keychain: the value is lost, not the whole store.
      console.warn(`deepdesk: could not decrypt the stored secret '${name}': ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  async set(name: string, value: string): Promise<void> {
    const reason = await this.cipher.unavailableReason();
    if (reason !== undefined) throw new Error(`cannot store '${name}' securely: ${reason}`);
    const encrypted = (await this.cipher.encrypt(value)).toString('base64');
    this.store.update((current) => ({ ...current, version: 1, secrets: { ...current.secrets, [name]: encrypted } }));
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
