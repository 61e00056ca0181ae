import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** Deepdesk's version, from the package.json above the running bundle. */
export function packageVersion(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
  }
  return '0.0.0';
}

/**
 * This build of Deepdesk: its version and when the bundle running this was built. The agent
 * host and its clients compare it, so that a host left from before an update or a rebuild is
 * replaced once it is idle.
 */
export function buildId(): string {
  let stamp = '';
  try {
    stamp = String(Math.round(statSync(fileURLToPath(import.meta.url)).mtimeMs));
  } catch {
    // Not from a file (a test's transform): the version alone.
  }
  return stamp === '' ? packageVersion() : `${packageVersion()}+${stamp}`;
}
