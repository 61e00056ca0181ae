// The Content-Security-Policy of the window, shared by the web host and the Electron shell.

/** `connectSources` are added to connect-src after 'self' (the web host adds its ws:// origins). */
export function contentSecurityPolicy(connectSources: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // The Markdown worker (src-renderer/src/lib/markdown.worker.ts), a file of the app's own.
    "worker-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    // Audio and video in the file viewer play from blob: URLs of the bytes files.read gave.
    "media-src 'self' blob:",
    ["connect-src 'self'", ...connectSources].join(' '),
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
