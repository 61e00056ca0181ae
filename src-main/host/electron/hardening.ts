// Electron's security settings for the app: CSP, permissions, navigation, popups, webviews.

import { shell, type Session, type WebContents } from 'electron';
import { contentSecurityPolicy } from '../web/csp';
import { externalLink, isAppPageUrl, type AppPages } from './trusted-urls';

/** Clipboard writes (copying from the terminal and the chat) are the one permission granted. */
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);

export function hardenSession(session: Session, pages: AppPages): void {
  // The dev server's page needs Vite's inline scripts and HMR socket; only built pages get the header.
  if (pages.devServerUrl === undefined) {
    const csp = contentSecurityPolicy();
    session.webRequest.onHeadersReceived((details, callback) => {
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
    });
  }
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(ALLOWED_PERMISSIONS.has(permission)));
  session.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission));
}

function openInBrowser(url: string): void {
  const link = externalLink(url);
  if (link !== undefined) void shell.openExternal(link);
}

/** Applied to every WebContents the app creates (app 'web-contents-created'). */
export function hardenContents(contents: WebContents, pages: AppPages): void {
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openInBrowser(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => {
    if (isAppPageUrl(event.url, pages)) return;
    event.preventDefault();
    openInBrowser(event.url);
  });
  contents.on('will-frame-navigate', (event) => {
    if (!isAppPageUrl(event.url, pages)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isAppPageUrl(event.url, pages)) event.preventDefault();
  });
}
