// Which URLs are the app's own page: the built index.html, or the electron-vite dev server.

import { pathToFileURL } from 'node:url';

export interface AppPages {
  /** Absolute path of out/renderer/index.html. */
  indexFile: string;
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

/** True for the app's own page (any query or fragment), false for everything else. */
export function isAppPageUrl(url: string | undefined, pages: AppPages): boolean {
  const parsed = parse(url);
  if (parsed === undefined) return false;
  if (parsed.protocol === 'file:') {
    parsed.search = '';
    parsed.hash = '';
    return parsed.href === pathToFileURL(pages.indexFile).href;
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
