import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Deepdesk's version, from the package.json above the running bundle. */
export function packageVersion(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
  }
  return '0.0.0';
}
