// Encrypted secrets in a JSON file: values are ciphertext (base64) from a SecretCipher,
// which on the desktop is Electron safeStorage (secrets.ts). Node-only so it can be tested.

import { mkdirSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SecretStore } from '../../app/secret-store';

export interface SecretCipher {
  /** Undefined when encryption is usable, else the reason it is not (shown to the person). */
  unavailableReason(): Promise<string | undefined>;
  encrypt(plain: string): Promise<Buffer>;
  decrypt(data: Buffer): Promise<string>;
}

interface SecretFile {
  version: 1;
  secrets: Record<string, string>;
}

export class EncryptedFileSecretStore implements SecretStore {
  /** Serialises read-modify-write cycles so concurrent set/delete calls do not lose updates. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly cipher: SecretCipher,
  ) {}

  async get(name: string): Promise<string | undefined> {
    const encoded = (await this.read()).secrets[name];
    if (encoded === undefined) return undefined;
    try {
      return await this.cipher.decrypt(Buffer.from(encoded, 'base64'));
    } catch (err) {
      // A changed or reset keychain: the value is lost, not the whole store.
      console.warn(`deepdesk: could not decrypt the stored secret '${name}': ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  set(name: string, value: string): Promise<void> {
    return this.update(async (data) => {
      const reason = await this.cipher.unavailableReason();
      if (reason !== undefined) throw new Error(`cannot store '${name}' securely: ${reason}`);
      data.secrets[name] = (await this.cipher.encrypt(value)).toString('base64');
    });
  }

  delete(name: string): Promise<void> {
    return this.update(async (data) => {
      delete data.secrets[name];
    });
  }

  private update(change: (data: SecretFile) => Promise<void>): Promise<void> {
    const next = this.queue.then(async () => {
      const data = await this.read();
      await change(data);
      await this.write(data);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<SecretFile> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, secrets: Object.create(null) as Record<string, string> };
      throw err;
    }
    const parsed = JSON.parse(text) as Partial<SecretFile> | null;
    const secrets: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [key, value] of Object.entries(parsed?.secrets ?? {})) if (typeof value === 'string') secrets[key] = value;
    return { version: 1, secrets };
  }

  private async write(data: SecretFile): Promise<void> {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, this.file);
  }
}
