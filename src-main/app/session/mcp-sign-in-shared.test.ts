// One store of MCP sign-in tokens per data folder (SPEC §10): a sign-in made in the desktop
// app's window (its API keys in its keychain, elsewhere) is kept in the data folder's store,
// and `run`/`acp` — started as they start their servers — connect with it, no browser.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { userMcpFile } from '../../core/config/kinds/mcp';
import { oauthKey } from '../../core/extensions/mcp/oauth';
import { startAuthServer, type AuthServer } from '../../core/extensions/mcp/oauth-server.test-support';
import { until } from '../window/app-harness.test-support';
import { createApp, type App } from '../window/folder-app';
import type { SecretStore } from '../base/secret-store';
import { holdDataFolderSecrets } from '../settings/data-folder-secrets';
import { FileSecretStore } from '../settings/file-secret-store';
import { openCommandExtensions } from './session-extensions';

let folder: string;
let dataDir: string;
let auth: AuthServer;
let app: App | undefined;

beforeEach(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'dd-signin-')));
  dataDir = mkdtempSync(join(tmpdir(), 'dd-signin-data-'));
  auth = await startAuthServer();
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await auth.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** The desktop app's keychain file, which `run` and `acp` cannot open. */
function keychainStandIn(): SecretStore {
  const values = new Map<string, string>();
  return { get: async (k) => values.get(k), set: async (k, v) => void values.set(k, v), delete: async (k) => void values.delete(k) };
}

it('a sign-in made in the desktop window is used by run and acp for the same data folder', async () => {
  writeFileSync(userMcpFile(dataDir), JSON.stringify({ mcpServers: { secure: { type: 'http', url: `${auth.base}/mcp` } } }));
  const held = holdDataFolderSecrets(dataDir);
  try {
    // The "browser": follows the authorization URL, whose redirect lands on the hub's listener.
    const openExternal = async (url: string): Promise<void> => void (await fetch(url));
    const keychain = keychainStandIn();
    app = await createApp({ folder, dataDir, secrets: keychain, mcpTokens: held.store, openExternal, transport: 'electron', env: { PATH: process.env.PATH } });
    const status = async () => ((await app!.handle('mcp.list', {})) as { servers: Array<{ name: string; status: string }> }).servers.find((s) => s.name === 'secure')?.status;
    await until(async () => (await status()) === 'needs-sign-in', 'the server asks for a sign-in');
    await app.handle('mcp.signIn', { name: 'secure' });
    await until(async () => (await status()) === 'connected', 'the window signed in');
    expect(auth.registrations).toBe(1);

    // `run` and `acp` start the folder's servers this way: the kept tokens, no browser.
    const said: string[] = [];
    const run = await openCommandExtensions({ folder, dataDir, env: { PATH: process.env.PATH }, mcpConfigFiles: [], trust: false, version: '0.0.0', say: (line) => said.push(line) });
    try {
      expect(run.hub.states().find((s) => s.name === 'secure')?.status, said.join('\n')).toBe('connected');
    } finally {
      await run.close();
    }
    expect(auth.registrations).toBe(1);
    expect(auth.tokenRequests).toEqual(['authorization_code']);

    // Kept in the data folder's file (another process, another client, reads them), not in the keychain's.
    const other = new FileSecretStore(dataDir);
    try {
      expect(await other.get(oauthKey('secure', `${auth.base}/mcp`))).toContain('access_token');
    } finally {
      other.close();
    }
    expect(await keychain.get(oauthKey('secure', `${auth.base}/mcp`))).toBeUndefined();
  } finally {
    held.release();
  }
}, 60_000);
