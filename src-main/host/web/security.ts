// Access rules of `deepdesk serve` (SPEC §5): a secret token, kept in an HttpOnly cookie after
// the first page load, loopback Host headers only, and same-origin Origin for the WebSocket.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { contentSecurityPolicy } from './csp';

export const TOKEN_COOKIE = 'deepdesk_token';

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

export function hasTokenCookie(headers: IncomingHttpHeaders, token: string): boolean {
  return cookieValues(headers.cookie, TOKEN_COOKIE).some((value) => tokenMatches(value, token));
}

export function tokenCookie(token: string): string {
  // No Secure attribute: the server speaks plain http on loopback.
  return `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
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
