import { join } from 'node:path';
import type { SecretStore } from '../secret-store';
import { readJsonFile, writeJsonFileAtomic } from './atomic-json';

/** Secrets in `<data-dir>/secrets.json`, readable by the user only (mode 0600). */
export class FileSecretStore implements SecretStore {
  private readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'secrets.json');
  }

  private load(): Record<string, string> {
    const data = readJsonFile(this.path);
    return data && typeof data === 'object' ? (data as Record<string, string>) : {};
  }

  async get(name: string): Promise<string | undefined> {
    const value = this.load()[name];
    return typeof value === 'string' ? value : undefined;
  }

  async set(name: string, value: string): Promise<void> {
    writeJsonFileAtomic(this.path, { ...this.load(), [name]: value });
  }

  async delete(name: string): Promise<void> {
    const all = this.load();
    delete all[name];
    writeJsonFileAtomic(this.path, all);
  }
}
