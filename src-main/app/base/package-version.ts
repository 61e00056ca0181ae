import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join } from 'node:path';

/** Deepdesk's version, from the package.json above the running bundle. */
export function packageVersion(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
  }
  return '0.0.0';
}

let cachedBuildId: string | undefined;

/** Written beside the bundle by the build (scripts/build-id.ts). */
export const BUILD_ID_FILE = 'build-id';

/**
 * This build of Deepdesk: its version and the digest of the main-process bundle running this,
 * which the build keeps beside it. The agent host and its clients compare it, so that a host left
 * from before an update is replaced once it is idle. Not from a built bundle (a test's
 * transform): the version alone.
 */
export function buildId(): string {
  cachedBuildId ??= buildIdOf(bundleRoot(fileURLToPath(import.meta.url)));
  return cachedBuildId;
}

/** out/main, from any file of the bundle (its entries or chunks/). */
function bundleRoot(file: string): string {
  const dir = dirname(file);
  return basename(dir) === 'chunks' ? dirname(dir) : dir;
}

export function buildIdOf(bundleRoot: string): string {
  const version = packageVersion();
  let digest = '';
  try {
    digest = readFileSync(join(bundleRoot, BUILD_ID_FILE), 'utf8').trim();
  } catch {
    // Not a built bundle.
  }
  return /^[0-9a-f]{16}$/.test(digest) ? `${version}+${digest}` : version;
}
