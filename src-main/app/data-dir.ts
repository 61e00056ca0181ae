import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `--data-dir`, else `$DEEPDESK_HOME`, else `~/.deepdesk` (SPEC §5); created on first use. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const dir = resolve(flag ?? (env.DEEPDESK_HOME && env.DEEPDESK_HOME !== '' ? env.DEEPDESK_HOME : join(homedir(), '.deepdesk')));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function databasePath(dataDir: string): string {
  return join(dataDir, 'deepdesk.db');
}
