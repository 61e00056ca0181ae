// The desktop app's keychain: Electron safeStorage (the OS keychain), the cipher of the
// encrypted secrets file (app/settings/encrypted-file-secret-store.ts) the agent host keeps
// for the desktop app's windows, asked over the host's socket (desktop-answers.ts).

import { safeStorage } from 'electron';
import { keychainKeyProblem, type SecretCipher } from '../../app/settings/encrypted-file-secret-store';

export function safeStorageCipher(platform: NodeJS.Platform = process.platform): SecretCipher {
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
    insecureReason: (data) => keychainKeyProblem(platform, data),
  };
}
