// The desktop keychain store over the faked safeStorage, for each answer Electron can give:
// a keyring key (`v11`), no encryption at all, Chromium's built-in key on Linux (`v10`, which
// the async API falls back to whatever the selected backend says), and a request to
// re-encrypt. A key under the built-in key is refused and the reason said; one stored so
// before is encrypted anew once a keyring key is there.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, resetFakeElectron } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);
const { safeStorageCipher } = await import('./secrets');
const { EncryptedFileSecretStore } = await import('../../app/settings/encrypted-file-secret-store');

let dir: string;
beforeEach(() => {
  resetFakeElectron();
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-keychain-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

const file = () => join(dir, 'secrets.json');
const stored = (): Record<string, string> => (JSON.parse(readFileSync(file(), 'utf8')) as { secrets: Record<string, string> }).secrets;
const prefixOf = (name: string): string => Buffer.from(stored()[name]!, 'base64').subarray(0, 3).toString('latin1');
const store = (platform: NodeJS.Platform = 'linux') => new EncryptedFileSecretStore(file(), safeStorageCipher(platform));

describe('the safeStorage secret store', () => {
  it('stores and reads back under a keyring key (v11)', async () => {
    await store().set('anthropic', 'sk-ant-1');
    expect(prefixOf('anthropic')).toBe('v11');
    expect(readFileSync(file(), 'utf8')).not.toContain('sk-ant-1');
    expect(await store().get('anthropic')).toBe('sk-ant-1');
  });

  it.each(['gnome_libsecret', 'kwallet', 'kwallet5', 'kwallet6', 'basic_text', 'unknown'] as const)(
    'takes a keyring key (v11) whatever the selected backend answers (%s): the ciphertext is what counts',
    async (backend) => {
      fake.safeStorage.backend = backend;
      await store().set('openai', `sk-${backend}`);
      expect(prefixOf('openai')).toBe('v11');
      expect(await store().get('openai')).toBe(`sk-${backend}`);
    },
  );

  it('refuses when safeStorage cannot encrypt, and says why', async () => {
    fake.safeStorage.asyncAvailable = false;
    await expect(store().set('openai', 'sk')).rejects.toThrow(/cannot store 'openai' securely: the OS keychain is not available/);
  });

  it.each(['gnome_libsecret', 'basic_text', 'kwallet5'] as const)(
    "refuses Chromium's built-in key (v10) on Linux whatever the backend says (%s), and writes nothing",
    async (backend) => {
      fake.safeStorage.backend = backend;
      fake.safeStorage.prefix = 'v10';
      await expect(store().set('openai', 'sk-openai')).rejects.toThrow(/cannot store 'openai' securely: .*Chromium's built-in key, which anyone can decrypt/);
      expect(() => readFileSync(file())).toThrow();
    },
  );

  it('takes v10 on macOS, where it is the Keychain key’s own prefix', async () => {
    fake.safeStorage.prefix = 'v10';
    await store('darwin').set('openai', 'sk-mac');
    expect(await store('darwin').get('openai')).toBe('sk-mac');
  });

  it('encrypts a value anew when safeStorage asks (shouldReEncrypt: a rotated key)', async () => {
    await store().set('google', 'g-key');
    const keyOf = (): string => Buffer.from(stored().google!, 'base64').subarray(3, 5).toString('latin1');
    expect(keyOf()).toBe('k1');
    fake.safeStorage.keyId = 'k2';
    expect(await store().get('google')).toBe('g-key');
    expect(keyOf()).toBe('k1');
    fake.safeStorage.shouldReEncrypt = true;
    expect(await store().get('google')).toBe('g-key');
    expect(keyOf()).toBe('k2');
    expect(await store().get('google')).toBe('g-key');
  });

  it('re-encrypts a value stored under the built-in key once a keyring key is there; until then reads it and warns once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const old = Buffer.concat([Buffer.from('v10k0'), Buffer.from('old-key').reverse()]).toString('base64');
    writeFileSync(file(), JSON.stringify({ version: 1, secrets: { openai: old } }), { mode: 0o600 });

    fake.safeStorage.prefix = 'v10';
    const s = store();
    expect(await s.get('openai')).toBe('old-key');
    expect(await s.get('openai')).toBe('old-key');
    expect(stored().openai).toBe(old);
    expect(warn).toHaveBeenCalledTimes(1);

    fake.safeStorage.prefix = 'v11';
    expect(await store().get('openai')).toBe('old-key');
    expect(prefixOf('openai')).toBe('v11');
    expect(await store().get('openai')).toBe('old-key');
  });
});
