// app://deepdesk/: the built renderer, served from out/renderer through the web host's
// path-safe resolver, each response carrying the window's CSP as a header. A custom standard,
// secure scheme gives the page a real origin (app://deepdesk) that IPC trust can compare, and
// takes file:// out of the picture: the page can fetch nothing outside out/renderer.

import { readFile } from 'node:fs/promises';
import { contentSecurityPolicy } from '../web/csp';
import { contentType, resolveStaticFile } from '../web/static-files';
import { APP_HOST, APP_SCHEME } from './trusted-urls';

/** For protocol.registerSchemesAsPrivileged, before app 'ready'. */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true },
} as const;

/** The headers of every app:// response. The app talks to its main process over IPC only: connect-src is 'self'. */
export function appResponseHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-cache',
  };
}

function refuse(status: number, text: string): Response {
  return new Response(text, { status, headers: { ...appResponseHeaders(), 'Content-Type': 'text/plain; charset=utf-8' } });
}

/** Answers one app:// request from `rendererDir`; anything outside it, or another host, is 404. */
export async function appProtocolResponse(request: Request, rendererDir: string): Promise<Response> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return refuse(400, 'Bad request.\n');
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return refuse(404, 'Not found.\n');
  if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(405, 'Method not allowed.\n');
  // resolveStaticFile decodes the path and refuses whatever lands outside rendererDir (symlinks included).
  const file = await resolveStaticFile(rendererDir, url.pathname);
  if (file === undefined) return refuse(404, 'Not found.\n');
  const body = request.method === 'HEAD' ? null : await readFile(file);
  return new Response(body, { status: 200, headers: { ...appResponseHeaders(), 'Content-Type': contentType(file) } });
}
