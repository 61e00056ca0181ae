// OAuth sign-in for remote MCP servers that answer 401 (SPEC §10): the SDK does discovery,
// dynamic client registration and PKCE; this keeps what it needs with the app's other
// secrets and receives the browser's redirect on a one-shot listener on 127.0.0.1.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Where secrets live (the app's SecretStore fits). */
export interface McpTokenStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Everything kept for one server at one URL, as one secret. */
interface StoredAuth {
  tokens?: OAuthTokens;
  client?: OAuthClientInformationMixed;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
}

export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** The secret's name: the server and its URL (a changed URL signs in anew). */
export function oauthKey(server: string, url: string): string {
  return `mcp-oauth:${server}:${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
}

export function memoryTokenStore(): McpTokenStore {
  const values = new Map<string, string>();
  return {
    get: async (key) => values.get(key),
    set: async (key, value) => void values.set(key, value),
    delete: async (key) => void values.delete(key),
  };
}

export interface OAuthProviderOptions {
  clientName: string;
  /**
   * Set only while signing in (the listener's URL). Without it the provider only uses and
   * refreshes kept tokens: a flow that needs the person ends in UnauthorizedError (needs sign-in).
   */
  redirectUrl?: string;
  onRedirect?: (url: URL) => void | Promise<void>;
}

/** Stands in for the redirect while not signing in: the SDK then takes the authorization-code route, which stops at redirectToAuthorization. */
const NOT_SIGNING_IN = 'http://127.0.0.1/callback';

export class McpOAuthProvider implements OAuthClientProvider {
  /** The state sent with the last authorization request, checked on the redirect. */
  expectedState: string | undefined;

  constructor(
    private readonly store: McpTokenStore,
    private readonly key: string,
    private readonly options: OAuthProviderOptions,
  ) {}

  async hasTokens(): Promise<boolean> {
    return (await this.load()).tokens !== undefined;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl ?? NOT_SIGNING_IN;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString('hex');
    return this.expectedState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { client } = await this.load();
    // Signing in on another listener port than registered: register again (the redirect must match).
    if (this.options.redirectUrl === undefined) return client;
    const uris = client !== undefined && 'redirect_uris' in client ? (client.redirect_uris as string[] | undefined) : undefined;
    if (uris !== undefined && !uris.includes(this.options.redirectUrl)) return undefined;
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.update({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.load()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update({ tokens });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    await this.options.onRedirect?.(url);
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.update({ verifier });
  }

  async codeVerifier(): Promise<string> {
    const { verifier } = await this.load();
    if (verifier === undefined) throw new Error('no PKCE code verifier was saved for this sign-in');
    return verifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.update({ discovery });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.load()).discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all') {
      await this.store.delete(this.key);
      return;
    }
    const field = ({ client: 'client', tokens: 'tokens', verifier: 'verifier', discovery: 'discovery' } as const)[scope];
    const current = await this.load();
    delete current[field];
    await this.store.set(this.key, JSON.stringify(current));
  }

  private async load(): Promise<StoredAuth> {
    const raw = await this.store.get(this.key);
    if (raw === undefined) return {};
    try {
      return JSON.parse(raw) as StoredAuth;
    } catch {
      return {};
    }
  }

  private async update(patch: StoredAuth): Promise<void> {
    await this.store.set(this.key, JSON.stringify({ ...(await this.load()), ...patch }));
  }
}

export interface RedirectListener {
  /** `http://127.0.0.1:PORT/callback` */
  url: string;
  /** The authorization code of the first redirect whose state matches. */
  readonly code: Promise<string>;
  close(): void;
}

const PAGE = (message: string): string =>
  `<!doctype html><meta charset="utf-8"><title>Deepdesk</title><p>${message.replace(/[<>&]/g, '')}</p>`;

/** A one-shot listener for the browser's redirect: answers once, then closes (or after the timeout). */
export async function startRedirectListener(expected: () => string | undefined, timeoutMs = SIGN_IN_TIMEOUT_MS): Promise<RedirectListener> {
  let settle: { resolve: (code: string) => void; reject: (err: Error) => void } | undefined;
  const result = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  result.catch(() => undefined);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const state = url.searchParams.get('state');
    // A request without the state we sent is not the redirect we wait for (nor is a stray one).
    if (state === null || state !== expected()) {
      res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE('This sign-in link is not the one Deepdesk is waiting for.'));
      return;
    }
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error !== null || code === null) {
      res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE(`Sign-in failed: ${error ?? 'no code'}. You can close this tab.`));
      settle?.reject(new Error(`sign-in failed: ${url.searchParams.get('error_description') ?? error ?? 'the redirect carried no code'}`));
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE('Signed in. You can close this tab and return to Deepdesk.'));
      settle?.resolve(code);
    }
    close();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const timer = setTimeout(() => {
    settle?.reject(new Error(`sign-in timed out after ${Math.round(timeoutMs / 1000)} s`));
    close();
  }, timeoutMs);
  timer.unref();
  function close(): void {
    clearTimeout(timer);
    server.close();
    server.closeAllConnections();
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    code: result,
    close: () => {
      settle?.reject(new Error('sign-in was cancelled'));
      close();
    },
  };
}
