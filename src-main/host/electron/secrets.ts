// The desktop SecretStore: Electron safeStorage (the OS keychain) over an encrypted JSON file.

import { safeStorage } from 'electron';
import type { SecretStore } from '../../app/secret-store';
import { EncryptedFileSecretStore, type SecretCipher } from './secret-file';

/**
 * Chromium's OSCrypt on Linux prefixes what it encrypts with the kind of key: `v11` for a key
 * kept by the keyring (GNOME Keyring, KWallet), `v10` for its built-in, hard-coded fallback
 * key, which decrypts on any machine. The async API falls back to it silently, whatever the
 * (sync) selected backend says, so the ciphertext itself is what is checked.
 */
const LINUX_BUILT_IN_KEY_PREFIX = 'v10';

const BUILT_IN_KEY_REASON =
  'no OS keyring (GNOME Keyring, KWallet) is unlocked on this Linux desktop, so Electron would encrypt with Chromium\'s built-in key, which anyone can decrypt; start a keyring, or set the provider\'s API key variable in the environment instead';

export function safeStorageCipher(platform: NodeJS.Platform = process.platform): SecretCipher {
  const insecureReason = (data: Buffer): string | undefined =>
    platform === 'linux' && data.subarray(0, LINUX_BUILT_IN_KEY_PREFIX.length).toString('latin1') === LINUX_BUILT_IN_KEY_PREFIX ? BUILT_IN_KEY_REASON : undefined;
  return {
    async unavailableReason() {
      if (!(await safeStorage.isAsyncEncryptionAvailable())) {
        return "the OS keychain is not available (Electron safeStorage cannot encrypt); set the provider's API key variable in the environment instead";
      }
      return undefined;
    },
    encrypt: (plain) => safeStorage.encryptStringAsync(plain),
    decrypt: async (data) => {
      const { result, shouldReEncrypt } = await safeStorage.decryptStringAsync(data);
      return { plain: result, reEncrypt: shouldReEncrypt };
    },
    insecureReason,
  };
}

/** `file` is normally join(app.getPath('userData'), 'secrets.json'); call after app 'ready'. */
export function createSafeStorageSecretStore(file: string): SecretStore {
  return new EncryptedFileSecretStore(file, safeStorageCipher());
}
