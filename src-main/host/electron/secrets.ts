// The desktop SecretStore: Electron safeStorage (the OS keychain) over an encrypted JSON file.

import { safeStorage } from 'electron';
import type { SecretStore } from '../../app/secret-store';
import { EncryptedFileSecretStore, type SecretCipher } from './secret-file';

const safeStorageCipher: SecretCipher = {
  async unavailableReason() {
    if (!(await safeStorage.isAsyncEncryptionAvailable())) {
      return 'the OS keychain is not available (Electron safeStorage cannot encrypt); set the provider\'s API key variable in the environment instead';
    }
    // Without a keyring on Linux, Chromium falls back to a hard-coded key: that is not secure storage.
    if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
      return 'no OS keyring (GNOME Keyring, KWallet) was found on this Linux desktop; set the provider\'s API key variable in the environment instead';
    }
    return undefined;
  },
  encrypt: (plain) => safeStorage.encryptStringAsync(plain),
  decrypt: async (data) => (await safeStorage.decryptStringAsync(data)).result,
};

/** `file` is normally join(app.getPath('userData'), 'secrets.json'); call after app 'ready'. */
export function createSafeStorageSecretStore(file: string): SecretStore {
  return new EncryptedFileSecretStore(file, safeStorageCipher);
}
