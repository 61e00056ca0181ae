// OAuth sign-in against a local authorization server of the test's own (discovery, dynamic
// client registration, /authorize redirecting back with a code, /token checking PKCE) in
// front of a streamable-HTTP MCP server that wants a bearer token.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestHub, httpEntry, type TestHub } from './hub.test-support';
import { startAuthServer, type AuthServer } from './oauth-server.test-support';
import { memoryTokenStore, oauthKey, startRedirectListener } from './oauth';

let t: TestHub | undefined;
let t2: TestHub | undefined;
let auth: AuthServer | undefined;
afterEach(async () => {
  await t?.dispose();
  await t2?.dispose();
  await auth?.close();
  t = t2 = auth = undefined;
});

describe('OAuth sign-in for remote MCP servers', () => {
  it('401 → needs-sign-in; signIn registers, opens the browser, takes the redirect on 127.0.0.1, exchanges the code with PKCE, connects; the tokens are kept', async () => {
    auth = await startAuthServer();
    const tokens = memoryTokenStore();
    const opened: string[] = [];
    // The "browser": follows the authorization URL, whose redirect lands on the hub's listener.
    const openBrowser = async (url: string): Promise<void> => {
      opened.push(url);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('Signed in');
    };
    t = createTestHub({ tokens, openBrowser });
    const entry = httpEntry('secure', `${auth.base}/mcp`);
    await t.hub.configure([entry], []);
    expect(t.hub.states()[0]!.status).toBe('needs-sign-in');
    expect(opened).toEqual([]);

    await t.hub.signIn('secure');
    expect(t.hub.states()[0]!.status, t.hub.states()[0]!.error).toBe('connected');
    expect(opened).toHaveLength(1);
    const authorize = new URL(opened[0]!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(auth.registrations).toBe(1);
    expect(auth.tokenRequests).toEqual(['authorization_code']);
    expect((await t.hub.callTool('mcp__secure__whoami', {}, new AbortController().signal)).text).toBe('signed in');

    const stored = JSON.parse((await tokens.get(oauthKey('secure', entry.url)))!) as { tokens: { access_token: string } };
    expect(auth.tokens.has(stored.tokens.access_token)).toBe(true);

    // Another start (a new window, a restart) uses the kept tokens: no browser.
    t2 = createTestHub({ tokens, openBrowser });
    await t2.hub.configure([entry], []);
    expect(t2.hub.states()[0]!.status).toBe('connected');
    expect(opened).toHaveLength(1);

    // Tokens the server no longer takes (and no refresh that works): needs sign-in again, no browser opened by itself.
    auth.tokens.clear();
    await t2.hub.restart('secure');
    expect(t2.hub.states()[0]!.status, t2.hub.states()[0]!.error).toBe('needs-sign-in');
    expect(opened).toHaveLength(1);
    expect(auth.registrations).toBe(1);
    await t2.hub.signIn('secure');
    expect(t2.hub.states()[0]!.status).toBe('connected');
    expect(opened).toHaveLength(2);
  });

  it('the redirect listener ignores a redirect with another state and closes after the one it waited for', async () => {
    const listener = await startRedirectListener(() => 'right-state');
    const wrong = await fetch(`${listener.url}?code=x&state=wrong`);
    expect(wrong.status).toBe(400);
    const right = await fetch(`${listener.url}?code=the-code&state=right-state`);
    expect(right.status).toBe(200);
    expect(await listener.code).toBe('the-code');
    await expect(fetch(`${listener.url}?code=again&state=right-state`)).rejects.toThrow();
  });

  it('an error redirect fails the sign-in; a listener nobody answers times out', async () => {
    const denied = await startRedirectListener(() => 's');
    await fetch(`${denied.url}?error=access_denied&error_description=nope&state=s`);
    await expect(denied.code).rejects.toThrow('sign-in failed: nope');
    const idle = await startRedirectListener(() => 's', 50);
    await expect(idle.code).rejects.toThrow('sign-in timed out');
  });
});
