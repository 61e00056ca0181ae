// Electron's security settings for the app: the app:// page and its CSP, permissions,
// navigation, popups, webviews, downloads and the spellchecker.

import { shell, type Session, type WebContents } from 'electron';
import { appProtocolResponse } from './app-protocol';
import { APP_SCHEME, externalLink, isAppPageUrl, type AppPages } from './trusted-urls';

/** Clipboard writes (copying from the terminal and the chat) are the one permission granted. */
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);

/**
 * Hunspell (Linux, Windows) fetches its dictionaries from Google's servers at start-up;
 * macOS spellchecks with the system's own dictionaries, with nothing to download.
 */
export function spellcheckerWanted(platform: NodeJS.Platform = process.platform): boolean {
  return platform === 'darwin';
}

export function hardenSession(session: Session, pages: AppPages): void {
  // The built renderer, its CSP a response header of every file (the dev server's page is unprotected: Vite needs inline scripts).
  session.protocol.handle(APP_SCHEME, (request) => appProtocolResponse(request, pages.rendererDir));
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(ALLOWED_PERMISSIONS.has(permission)));
  session.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission));
  // The window downloads nothing: a link or a model's page must not save files behind the person's back.
  session.on('will-download', (event, item) => {
    console.warn(`deepdesk: refused a download of ${item.getURL()}`);
    event.preventDefault();
  });
  // The window's webPreferences.spellcheck says the same (main-window.ts).
  if (!spellcheckerWanted()) session.setSpellCheckerEnabled(false);
}

/** Chromium's own debugging switches; fuses turn off Node's (--inspect, NODE_OPTIONS), not these. */
const DEBUG_SWITCHES = ['remote-debugging-port', 'remote-debugging-pipe', 'remote-allow-origins'];

/** The debugging switch a packaged app was started with, if any (it then refuses to run). */
export function debugSwitchGiven(hasSwitch: (name: string) => boolean): string | undefined {
  return DEBUG_SWITCHES.find((name) => hasSwitch(name));
}

function openInBrowser(url: string): void {
  const link = externalLink(url);
  if (link !== undefined) void shell.openExternal(link);
}

/**
 * Applied to every WebContents the app creates (app 'web-contents-created'). http(s) links
 * reach here only after the window asked the person (src-renderer's external-links: the real
 * address, once per host); this side keeps the page where it is and hands them to the browser.
 */
export function hardenContents(contents: WebContents, pages: AppPages): void {
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openInBrowser(url);
    return { action: 'deny' };
  });
  // Electron emits will-frame-navigate first, for every frame, and will-navigate after it only
  // for the main frame and only when the first was not prevented: the main frame is left to
  // will-navigate, which opens web links in the browser instead of dropping them.
  contents.on('will-frame-navigate', (event) => {
    if (event.isMainFrame) return;
    if (!isAppPageUrl(event.url, pages)) event.preventDefault();
  });
  contents.on('will-navigate', (event) => {
    if (isAppPageUrl(event.url, pages)) return;
    event.preventDefault();
    openInBrowser(event.url);
  });
  contents.on('will-redirect', (event) => {
    if (!isAppPageUrl(event.url, pages)) event.preventDefault();
  });
}
