// Access rules of `deepdesk serve` (SPEC §5): loopback Host headers only, a same-origin
// Origin for the WebSocket, and two secrets of one launch:
// - the token of the printed link. The page keeps it in its tab's sessionStorage (which
//   only our origin, port included, can read) and offers it as a WebSocket subprotocol;
//   nothing else carries it, so it is the one credential that opens the API.
// - a session secret in an HttpOnly SameSite=Strict cookie named after our port, which
//   only lets a reload fetch the page's static files. Cookies ignore ports: any other
//   server on 127.0.0.1 that the browser visits receives it, so it must open nothing else.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { contentSecurityPolicy } from './csp';

/** The subprotocol the server selects; the token travels as `deepdesk.token.<token>` beside it. */
export const SUBPROTOCOL = 'deepdesk';
export const TOKEN_PROTOCOL_PREFIX = 'deepdesk.token.';

/** One cookie per port, so two serve instances in one browser keep their own. */
export function sessionCookieName(port: number): string {
  return `deepdesk_session_${port}`;
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison; hashing first hides the length of the expected token too. */
export function tokenMatches(candidate: string | undefined, token: string): boolean {
  if (candidate === undefined || candidate === '') return false;
  const a = createHash('sha256').update(candidate).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** Every value of the cookie `name` (a browser may send several with the same name). */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    values.push(part.slice(eq + 1).trim());
  }
  return values;
}

export function hasSessionCookie(headers: IncomingHttpHeaders, port: number, secret: string): boolean {
  return cookieValues(headers.cookie, sessionCookieName(port)).some((value) => tokenMatches(value, secret));
}

export function sessionCookie(port: number, secret: string): string {
  // No Secure attribute: the server speaks plain http on loopback.
  return `${sessionCookieName(port)}=${secret}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The token offered in a `Sec-WebSocket-Protocol` header, if any. */
export function tokenFromProtocols(header: string | string[] | undefined): string | undefined {
  const values = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((p) => p.trim());
  const offered = values.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  return offered?.slice(TOKEN_PROTOCOL_PREFIX.length);
}

/** The origins the window may be loaded from: 127.0.0.1 and localhost on our port. */
export function allowedOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/** DNS-rebinding defence: the Host header must name loopback on our port. */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const value = host.toLowerCase();
  return value === `127.0.0.1:${port}` || value === `localhost:${port}`;
}

export function originAllowed(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return false;
  return allowedOrigins(port).includes(origin.toLowerCase());
}

export function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy([`ws://127.0.0.1:${port}`, `ws://localhost:${port}`]),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}
