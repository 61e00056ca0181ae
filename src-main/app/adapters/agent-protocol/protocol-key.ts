// The Agent Protocol's key (SPEC §19): what `x-api-key` must carry. It lives in the host's own
// folder (paths.ts, 0700), 0600, made on first use; `deepdesk host --print-key` shows it and
// `--rotate-key` replaces it. The server reads it at each request, so a rotation by another
// process applies at once. Not a model key: it is in no environment, and never given to commands.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withholdFromCommands } from '../../../core/process/app-secrets';
import { ensureHostDir } from '../../host/paths';
import { createPrivateFile, writePrivateFile } from '../../host/private-file';

const KEY_FILE = 'protocol-key';

function keyPath(dataDir: string): string {
  return join(ensureHostDir(dataDir).dir, KEY_FILE);
}

function newKey(): string {
  return randomBytes(32).toString('base64url');
}

/** The data folder's protocol key, made (once, whoever races) when there is none. */
export function protocolKey(dataDir: string): string {
  return keyAt(keyPath(dataDir));
}

/**
 * The key as the server checks it: read at each call (a rotation applies to the next
 * request); '' (nothing matches) when it cannot be read.
 */
export function protocolKeyReader(dataDir: string): () => string {
  const path = keyPath(dataDir);
  return () => {
    try {
      return keyAt(path);
    } catch {
      return '';
    }
  };
}

function keyAt(path: string): string {
  let key = read(path);
  if (key === undefined) {
    // Of two processes making it at once, the first one's is the key.
    createPrivateFile(path, `${newKey()}\n`);
    key = read(path);
    if (key === undefined) throw new Error(`the Agent Protocol key could not be read from ${path}`);
  }
  withholdFromCommands(key);
  return key;
}

/** Replaces the key (the old one stops working at once); the new key. */
export function rotateProtocolKey(dataDir: string): string {
  const key = newKey();
  writePrivateFile(keyPath(dataDir), `${key}\n`);
  withholdFromCommands(key);
  return key;
}

function read(path: string): string | undefined {
  try {
    const key = readFileSync(path, 'utf8').trim();
    return key === '' ? undefined : key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
