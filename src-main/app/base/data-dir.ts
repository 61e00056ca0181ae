import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Files whose presence marks a folder as Deepdesk's own data folder. */
const DATA_FILES = ['deepdesk.db', 'checkpoints.db', 'secrets.json', 'settings.json'];

/**
 * `--data-dir`, else `$DEEPDESK_HOME`, else `~/.deepdesk` (SPEC §5); created on first use,
 * readable by the owner only (0700). An existing folder is tightened to 0700 too, before
 * anything is written in it, when it is Deepdesk's own (the default folder, an empty one,
 * or one that already holds its data) and belongs to us; a folder the person pointed at
 * that holds other things keeps its mode (the files and folders Deepdesk makes in it are
 * the owner's only whatever the folder).
 */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const fallback = join(homedir(), '.deepdesk');
  const dir = resolve(flag ?? (env.DEEPDESK_HOME && env.DEEPDESK_HOME !== '' ? env.DEEPDESK_HOME : fallback));
  const existed = existsSync(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ours = !existed || dir === fallback || readdirSync(dir).length === 0 || DATA_FILES.some((name) => existsSync(join(dir, name)));
  if (ours) tightenOwnerOnly(dir, 0o700);
  return dir;
}

export function databasePath(dataDir: string): string {
  return join(dataDir, 'deepdesk.db');
}

/** chmod to `mode` when the path is ours and wider than that; never fails the caller. */
export function tightenOwnerOnly(path: string, mode: number): void {
  try {
    const st = statSync(path);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return;
    if ((st.mode & 0o777 & ~mode) !== 0) chmodSync(path, mode);
  } catch {
    // Gone or not ours: nothing to tighten.
  }
}
