// Why a model call could not be made, in plain words: each kind of connection failure (the
// server is not running, no such host, no answer in time, a TLS failure, a refused key, no
// such model, too many requests, an account out of quota, the server's own error) with what the person can check.
// Where that is (Settings, a flag) is for the caller to say: core knows no window.

import { ModelError, QuotaError } from './errors';

export type ModelProblemKind =
  | 'refused'
  | 'host-not-found'
  | 'timeout'
  | 'tls'
  | 'unreachable'
  | 'unauthorized'
  | 'forbidden'
  | 'model-not-found'
  | 'rate-limited'
  | 'quota'
  | 'server-error';

/** What the person can check to fix it (in Settings, or on the command line). */
export type ModelProblemCheck = 'address' | 'api-key' | 'model';

export interface ModelProblem {
  kind: ModelProblemKind;
  /** One or two sentences, no jargon, without where to fix it. */
  summary: string;
  /** What to check; absent when only waiting or retrying helps (429, 5xx). */
  check?: ModelProblemCheck;
  /** Asking again at once gives the same answer (refused, no such host, a refused key): do not retry. */
  lasting: boolean;
  /** The technical message, for whoever wants it. */
  detail: string;
}

const TLS_CODES = /^(?:CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|HOSTNAME_MISMATCH)/;
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNREACHABLE_CODES = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** What the error chain says about the connection: its code, and the host (and port) it was for. */
interface Connection {
  code?: string;
  host?: string;
  timedOut: boolean;
}

function connectionOf(err: unknown): Connection {
  const found: Connection = { timedOut: false };
  const seen = new Set<unknown>();
  for (let current = err; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const { code, address, port, hostname } = current as { code?: unknown; address?: unknown; port?: unknown; hostname?: unknown };
    if (typeof code === 'string' && found.code === undefined) found.code = code;
    if (typeof address === 'string' && found.host === undefined) found.host = typeof port === 'number' ? hostPort(address, port) : address;
    if (typeof hostname === 'string' && found.host === undefined) found.host = hostname;
    if (current.name === 'TimeoutError') found.timedOut = true;
  }
  // The message is all that is left once an error crossed a process (or was re-worded).
  const text = messageOf(err);
  const named = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ECONNRESET)\b(?:\s+\[?([A-Za-z0-9._:-]+?)\]?(?::(\d+))?(?=[\s,;)]|$))?/.exec(text);
  if (named) {
    found.code ??= named[1];
    if (found.host === undefined && named[2] !== undefined) found.host = named[3] !== undefined ? `${named[2]}:${named[3]}` : named[2];
  }
  if (/\b(timed out|timeout)\b/i.test(text) && !/\bHTTP \d{3}\b/.test(text)) found.timedOut = true;
  return found;
}

function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : '';
}

function statusOf(err: unknown): number | undefined {
  if (err instanceof ModelError && err.status !== undefined) return err.status;
  const match = /\bHTTP (\d{3})\b/.exec(messageOf(err));
  return match ? Number(match[1]) : undefined;
}

/**
 * The problem `err` (from a model call) is, in plain words; undefined when it is none of the
 * connection kinds (a bad request, a refused prompt: its own message says it best).
 * `model`: the model's name as the person set it, to name it in "no such model".
 */
export function modelProblem(err: unknown, model?: string): ModelProblem | undefined {
  const detail = messageOf(err).trim() || String(err);
  const status = statusOf(err);
  const server = (host: string | undefined): string => (host ? `the model server at ${host}` : 'the model server');

  if (err instanceof QuotaError) {
    return { kind: 'quota', summary: 'The model provider says the account is out of quota, credit or its usage limit. Retrying will not help: add credit or raise the plan’s limit, or wait until it resets.', lasting: true, detail };
  }
  if (status !== undefined) {
    if (status === 401) return { kind: 'unauthorized', summary: 'The model server refused the API key (401): it is missing, wrong or expired.', check: 'api-key', lasting: true, detail };
    if (status === 403) return { kind: 'forbidden', summary: 'The API key may not use this model or server (403).', check: 'api-key', lasting: true, detail };
    if (status === 404) {
      const name = model ? `“${model.replace(/^[a-z-]+:/, '')}”` : 'this model';
      return { kind: 'model-not-found', summary: `The server has no model named ${name}, or the address does not point at its API (404).`, check: 'model', lasting: true, detail };
    }
    if (status === 429) return { kind: 'rate-limited', summary: 'The model provider is limiting requests (429): too many at once. Wait a moment, then retry.', lasting: false, detail };
    if (status >= 500 && status <= 599) return { kind: 'server-error', summary: `The model server failed with its own error (HTTP ${status}). This is on its side: retry in a moment.`, lasting: false, detail };
    if (status === 408) return { kind: 'timeout', summary: 'The model server did not answer in time (408). Retry in a moment.', lasting: false, detail };
    return undefined;
  }

  const { code, host, timedOut } = connectionOf(err);
  if (code === 'ECONNREFUSED' || code === 'ConnectionRefused') return { kind: 'refused', summary: `Can't reach ${server(host)}. Is it running?`, check: 'address', lasting: true, detail };
  if (code === 'ENOTFOUND') return { kind: 'host-not-found', summary: `Can't find ${host ? `the model server “${host}”` : 'the model server'}: no computer has that name.`, check: 'address', lasting: true, detail };
  if (code !== undefined && (TLS_CODES.test(code) || (code === 'EPROTO' && /ssl|tls/i.test(detail)))) {
    const plainHttp = /wrong version number|packet length too long|http request/i.test(detail);
    const summary = plainHttp
      ? `Can't make a secure connection to ${server(host)}: it speaks plain http. A local server’s address usually starts with http://, not https://.`
      : `Can't make a secure connection to ${server(host)}: its certificate is not trusted (${code}).`;
    return { kind: 'tls', summary, check: 'address', lasting: true, detail };
  }
  if ((code !== undefined && TIMEOUT_CODES.has(code)) || timedOut) return { kind: 'timeout', summary: `${capitalised(server(host))} did not answer in time. Is it running and reachable?`, check: 'address', lasting: false, detail };
  if (code === 'EAI_AGAIN') return { kind: 'host-not-found', summary: `Can't look up ${host ? `“${host}”` : 'the model server’s name'} right now: is this computer online?`, check: 'address', lasting: false, detail };
  if (code !== undefined && UNREACHABLE_CODES.has(code)) return { kind: 'unreachable', summary: `The connection to ${server(host)} failed (${code}). Is the network up?`, check: 'address', lasting: false, detail };
  return undefined;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
