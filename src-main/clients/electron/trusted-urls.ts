// Which URLs are the app's own page: app://deepdesk/index.html (the built renderer, served by
// app-protocol.ts), or the electron-vite dev server in an unpackaged app.

/** The scheme and host the built renderer is served from (registered before app 'ready'). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'deepdesk';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_PAGE_URL = `${APP_ORIGIN}/index.html`;

export interface AppPages {
  /** Absolute path of out/renderer, the only folder app:// serves. */
  rendererDir: string;
  /** ELECTRON_RENDERER_URL in development; undefined in a packaged app. */
  devServerUrl?: string | undefined;
}

function parse(url: string | undefined): URL | undefined {
  if (url === undefined || url === '') return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The page the window loads. */
export function appPageUrl(pages: AppPages): string {
  return pages.devServerUrl ?? APP_PAGE_URL;
}

/** True for the app's own page (any query or fragment), false for everything else. */
export function isAppPageUrl(url: string | undefined, pages: AppPages): boolean {
  const parsed = parse(url);
  if (parsed === undefined) return false;
  if (parsed.protocol === `${APP_SCHEME}:`) {
    // A non-special scheme: Node's URL gives no origin, so scheme, host and path are compared.
    return parsed.host === APP_HOST && parsed.username === '' && parsed.port === '' && (parsed.pathname === '/index.html' || parsed.pathname === '/');
  }
  const dev = parse(pages.devServerUrl);
  if (dev === undefined || (dev.protocol !== 'http:' && dev.protocol !== 'https:')) return false;
  return parsed.origin === dev.origin;
}

/** The URL to hand to the OS browser, when it is an http(s) link; undefined otherwise. */
export function externalLink(url: string): string | undefined {
  const parsed = parse(url);
  return parsed !== undefined && (parsed.protocol === 'http:' || parsed.protocol === 'https:') ? parsed.href : undefined;
}
