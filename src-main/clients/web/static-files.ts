// Serves the built renderer (out/renderer) read-only, never outside its folder.

import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

export function contentType(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

function contains(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The file for a URL path inside `root`, or undefined (missing, a folder, outside `root`,
 * or an undecodable path). Symlinks are resolved before the containment check.
 */
export async function resolveStaticFile(root: string, pathname: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const wanted = decoded === '/' || decoded === '' ? '/index.html' : decoded;
  const realRoot = await realpath(root).catch(() => undefined);
  if (realRoot === undefined) return undefined;
  const candidate = resolve(realRoot, `.${wanted}`);
  if (!contains(realRoot, candidate)) return undefined;
  const real = await realpath(candidate).catch(() => undefined);
  if (real === undefined || !contains(realRoot, real)) return undefined;
  const info = await stat(real).catch(() => undefined);
  return info?.isFile() ? real : undefined;
}

/** Sends a file resolved by resolveStaticFile, with ETag revalidation. */
export async function sendStaticFile(req: IncomingMessage, res: ServerResponse, file: string, headers: Record<string, string>): Promise<void> {
  const info = await stat(file);
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  // Built assets have content hashes in their names; everything else is revalidated.
  const immutable = file.includes(`${sep}assets${sep}`) && /-[\w-]{6,}\.\w+$/.test(file);
  const common = {
    ...headers,
    ETag: etag,
    'Cache-Control': immutable ? 'private, max-age=31536000, immutable' : 'no-cache',
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, common);
    res.end();
    return;
  }
  res.writeHead(200, { ...common, 'Content-Type': contentType(file), 'Content-Length': String(info.size) });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await new Promise<void>((done) => {
    const stream = createReadStream(file);
    stream.on('error', () => {
      res.destroy();
      done();
    });
    stream.on('end', done);
    stream.pipe(res);
  });
}
