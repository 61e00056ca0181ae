// Issue 42: every kind of model-connection failure in plain words, with what to check. The
// network failures are real where a test machine can make them (a closed port, https to a
// plain-http server, HTTP statuses from a real server); the others are the errors Node and
// undici throw, as the SDK wraps them.

import { createServer } from 'node:net';
import { APICallError } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelProblem } from './connection-problem';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { classifyError } from './errors';
import { startScriptedServer, type ScriptedServer } from './testing/scripted-server';

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What one model call to `baseUrl` throws (no retries: the first answer). */
async function failureOf(baseUrl: string, model = 'openai-compatible:qwen3'): Promise<unknown> {
  const chat = createChatModel({ model, baseUrl, apiKey: 'sk-test', retry: { maxRetries: 0 } });
  try {
    await collectResponse(chat.stream({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], maxOutputTokens: 8 }));
  } catch (err) {
    return err;
  }
  throw new Error('the call succeeded');
}

/** A Node network error as the SDK throws it: an APICallError caused by the socket's error. */
function networkError(code: string, message: string, extra: Record<string, unknown> = {}): unknown {
  const cause = Object.assign(new Error(message), { code, ...extra });
  return classifyError(new APICallError({ message: `Cannot connect to API: ${message}`, url: 'http://x/v1/chat/completions', requestBodyValues: {}, cause, isRetryable: true }));
}

describe('modelProblem', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('a server that is not running: can’t reach it at its address, is it running; check the address; do not retry', async () => {
    const port = await closedPort();
    const problem = modelProblem(await failureOf(`http://127.0.0.1:${port}/v1`));
    expect(problem).toMatchObject({ kind: 'refused', summary: `Can't reach the model server at 127.0.0.1:${port}. Is it running?`, check: 'address', lasting: true });
    // The technical text stays available.
    expect(problem!.detail).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('https to a plain-http server: says so, and that a local address starts with http://', async () => {
    const port = Number(new URL(server.url).port);
    const problem = modelProblem(await failureOf(`https://127.0.0.1:${port}/v1`));
    expect(problem).toMatchObject({ kind: 'tls', check: 'address', lasting: true });
    expect(problem!.summary).toMatch(/secure connection .* plain http.*http:\/\//);
  });

  it.each([
    [401, 'unauthorized', 'api-key', true, /refused the API key/],
    [403, 'forbidden', 'api-key', true, /may not use this model/],
    [404, 'model-not-found', 'model', true, /no model named “qwen3”/],
    [429, 'rate-limited', undefined, false, /limiting requests.*retry/],
    [503, 'server-error', undefined, false, /its own error \(HTTP 503\).*retry/],
  ] as const)('HTTP %i from a real server: %s', async (status, kind, check, lasting, summary) => {
    server.push({ error: { status, body: { error: { message: `scripted ${status}`, type: 'invalid_request_error' } } } });
    const problem = modelProblem(await failureOf(server.url), 'openai-compatible:qwen3');
    expect(problem).toMatchObject({ kind, lasting, ...(check ? { check } : {}) });
    expect(problem!.check).toBe(check);
    expect(problem!.summary).toMatch(summary);
    expect(problem!.detail).toContain(`scripted ${status}`);
  });

  it('no such host name', () => {
    const problem = modelProblem(networkError('ENOTFOUND', 'getaddrinfo ENOTFOUND llm.example.internal', { hostname: 'llm.example.internal' }));
    expect(problem).toMatchObject({ kind: 'host-not-found', summary: 'Can\'t find the model server “llm.example.internal”: no computer has that name.', check: 'address', lasting: true });
  });

  it('no answer in time (connect timeout), and a certificate that is not trusted', () => {
    expect(modelProblem(networkError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error (attempted address: 10.0.0.9:443, timeout: 10000ms)'))).toMatchObject({ kind: 'timeout', check: 'address', lasting: false });
    const tls = modelProblem(networkError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'));
    expect(tls).toMatchObject({ kind: 'tls', check: 'address', lasting: true });
    expect(tls!.summary).toContain('certificate is not trusted');
  });

  it('reads the address from the message when only the message is left (re-worded by the retry)', () => {
    const problem = modelProblem(new Error('openai-compatible:x failed after 5 attempts: Network error: Cannot connect to API: connect ECONNREFUSED 127.0.0.1:1234'));
    expect(problem).toMatchObject({ kind: 'refused', summary: "Can't reach the model server at 127.0.0.1:1234. Is it running?" });
  });

  it('is none of these for a bad request or an error of another kind', async () => {
    server.push({ error: { status: 400, body: { error: { message: 'bad tool schema', type: 'invalid_request_error' } } } });
    expect(modelProblem(await failureOf(server.url))).toBeUndefined();
    expect(modelProblem(new Error('something else broke'))).toBeUndefined();
  });
});
