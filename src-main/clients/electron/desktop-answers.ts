// What the desktop app answers when the agent host asks (app/host/desktop-clients.ts): its
// keychain (Electron safeStorage), its native folder dialog, and the person's browser. The
// host is the person's own process behind a socket only they can open; what it sends is
// checked all the same.

import { z } from 'zod';
import { DESKTOP_ASKS } from '../../app/host/desktop-clients';
import type { SecretCipher } from '../../app/settings/encrypted-file-secret-store';

export interface DesktopAnswerOptions {
  cipher: SecretCipher;
  /** The native folder dialog; null when the person cancels. */
  pickFolder: () => Promise<string | null>;
  /** shell.openExternal. */
  openExternal: (url: string) => Promise<void>;
}

const encryptAsk = z.object({ plain: z.string() });
const decryptAsk = z.object({ data: z.string().base64() });
const openExternalAsk = z.object({ url: z.string().regex(/^https?:\/\//i, 'only web addresses open in the browser') });

export function desktopAnswers(options: DesktopAnswerOptions): Record<string, (params: unknown) => Promise<unknown>> {
  return {
    [DESKTOP_ASKS.unavailable]: async () => {
      const reason = await options.cipher.unavailableReason();
      return reason !== undefined ? { reason } : {};
    },
    [DESKTOP_ASKS.encrypt]: async (params) => ({ data: (await options.cipher.encrypt(encryptAsk.parse(params).plain)).toString('base64') }),
    [DESKTOP_ASKS.decrypt]: async (params) => {
      const { plain, reEncrypt } = await options.cipher.decrypt(Buffer.from(decryptAsk.parse(params).data, 'base64'));
      return { plain, reEncrypt };
    },
    [DESKTOP_ASKS.pickFolder]: async () => ({ folder: await options.pickFolder() }),
    [DESKTOP_ASKS.openExternal]: async (params) => {
      await options.openExternal(openExternalAsk.parse(params).url);
      return { ok: true };
    },
  };
}
