import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EncryptedFileSecretStore, type SecretCipher } from './encrypted-file-secret-store';

// Stands in for Electron safeStorage, which cannot run here: a reversible, visibly non-plain encoding.
const cipher: SecretCipher = {
  unavailableReason: async () => undefined,
  encrypt: async (plain) => Buffer.from(`enc:${[...plain].reverse().join('')}`),
  decrypt: async (data) => {
    const text = data.toString('utf8');
    if (!text.startsWith('enc:')) throw new Error('bad ciphertext');
    return { plain: [...text.slice(4)].reverse().join(''), reEncrypt: false };
  },
  insecureReason: () => undefined,
};

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'deepdesk-secrets-'));
  dirs.push(dir);
  return join(dir, 'userData', 'secrets.json');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe('encrypted secret file', () => {
  it('stores values encrypted, reads them back, deletes them', async () => {
    const file = tempFile();
    const store = new EncryptedFileSecretStore(file, cipher);
    expect(await store.get('anthropic')).toBeUndefined();
    await store.set('anthropic', 'sk-ant-123');
    await store.set('openai', 'sk-openai');
    expect(await store.get('anthropic')).toBe('sk-ant-123');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('sk-ant-123');
    expect(Object.keys((JSON.parse(text) as { secrets: object }).secrets).sort()).toEqual(['anthropic', 'openai']);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);

    // A new instance (the next run) sees the same values.
    const again = new EncryptedFileSecretStore(file, cipher);
    expect(await again.get('openai')).toBe('sk-openai');
    await again.delete('openai');
    await again.delete('never-there');
    expect(await again.get('openai')).toBeUndefined();
    expect(await again.get('anthropic')).toBe('sk-ant-123');
  });

  it('keeps every update when calls overlap', async () => {
    const store = new EncryptedFileSecretStore(tempFile(), cipher);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`k${i}`, `v${i}`)));
    for (let i = 0; i < 20; i++) expect(await store.get(`k${i}`)).toBe(`v${i}`);
  });

  it('refuses to store when encryption is unavailable, and says why', async () => {
    const file = tempFile();
    const store = new EncryptedFileSecretStore(file, { ...cipher, unavailableReason: async () => 'the OS keychain is not available' });
    await expect(store.set('anthropic', 'sk')).rejects.toThrow("cannot store 'anthropic' securely: the OS keychain is not available");
    expect(() => statSync(file)).toThrow();
  });

  it('treats an undecryptable value as missing', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const file = tempFile();
    const store = new EncryptedFileSecretStore(file, cipher);
    await store.set('good', 'v');
    const data = JSON.parse(readFileSync(file, 'utf8')) as { secrets: Record<string, string> };
    data.secrets.bad = Buffer.from('garbage').toString('base64');
    writeFileSync(file, JSON.stringify(data));
    expect(await store.get('bad')).toBeUndefined();
    expect(warn).toHaveBeenCalled();
    expect(await store.get('good')).toBe('v');
  });
});
