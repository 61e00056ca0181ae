// Secrets in `<data-dir>/secrets.json`, readable by the user only (mode 0600), as a
// JsonFileStore: an unreadable file is kept aside (never overwritten from an empty state),
// each entry is checked on its own, and several processes merge their saves.

import { join } from 'node:path';
import { z } from 'zod';
import type { SecretStore } from '../base/secret-store';
import { JsonFileStore, recordShape, type JsonFileProblem } from '../../core/config/json-file-store';

export class FileSecretStore implements SecretStore {
  private readonly store: JsonFileStore<Record<string, string>>;

  constructor(dataDir: string) {
    this.store = new JsonFileStore({
      path: join(dataDir, 'secrets.json'),
      shape: recordShape(z.string()),
      mode: 0o600,
      defaultsText: 'no API key is stored until you save one again (the keys in the moved file still work if you copy them back)',
    });
  }

  async get(name: string): Promise<string | undefined> {
    const all = this.store.current();
    return Object.hasOwn(all, name) ? all[name] : undefined;
  }

  async set(name: string, value: string): Promise<void> {
    this.store.update((all) => ({ ...all, [name]: value }));
  }

  async delete(name: string): Promise<void> {
    this.store.update((all) => Object.fromEntries(Object.entries(all).filter(([key]) => key !== name)));
  }

  onChange(listener: () => void): () => void {
    return this.store.onChange(() => listener());
  }

  onProblem(listener: (problem: JsonFileProblem) => void): () => void {
    return this.store.onProblem(listener);
  }

  close(): void {
    this.store.close();
  }
}
