// A local authorization server of the tests' own (discovery, dynamic client registration,
// /authorize redirecting back with a code, /token checking PKCE) in front of a
// streamable-HTTP MCP server that wants a bearer token.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface AuthServer {
  base: string;
  registrations: number;
  tokenRequests: string[];
  /** Tokens the MCP endpoint accepts. */
  tokens: Set<string>;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

export async function startAuthServer(): Promise<AuthServer> {
  const clients = new Map<string, string[]>();
  const codes = new Map<string, { challenge: string; redirectUri: string; clientId: string }>();
  const state: AuthServer = { base: '', registrations: 0, tokenRequests: [], tokens: new Set(), close: async () => undefined };
  const json = (res: ServerResponse, status: number, value: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };
  const server: HttpServer = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', state.base);
    const base = state.base;
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      const metadata = JSON.parse(await body(req)) as { redirect_uris: string[] };
      const clientId = `client-${++state.registrations}`;
      clients.set(clientId, metadata.redirect_uris);
      return json(res, 201, { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) });
    }
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      const clientId = q.get('client_id') ?? '';
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!clients.get(clientId)?.includes(redirectUri) || q.get('code_challenge_method') !== 'S256') return json(res, 400, { error: 'invalid_request' });
      const code = randomBytes(8).toString('hex');
      codes.set(code, { challenge: q.get('code_challenge') ?? '', redirectUri, clientId });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await body(req));
      state.tokenRequests.push(form.get('grant_type') ?? '');
      const grant = codes.get(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (grant === undefined || grant.challenge !== challenge || grant.redirectUri !== form.get('redirect_uri') || grant.clientId !== form.get('client_id')) {
        return json(res, 400, { error: 'invalid_grant' });
      }
      codes.delete(form.get('code') ?? '');
      const token = randomBytes(16).toString('hex');
      state.tokens.add(token);
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, refresh_token: `r-${token}` });
    }
    if (url.pathname === '/mcp') {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (bearer === undefined || !state.tokens.has(bearer)) {
        res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
        return;
      }
      const mcp = new Server({ name: 'secure', version: '1.0.0' }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'whoami', description: 'Says who you are.', inputSchema: { type: 'object', properties: {} } }] }));
      mcp.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: 'signed in' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  state.base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
