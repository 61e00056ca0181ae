// Where a project folder lives (SPEC §13): a local path, or `ssh://[USER@]HOST[:PORT]/ABS/PATH`
// on another machine. Parsed here only, for `--folder` on every command and for the window's
// Open folder; the URL is the folder's one text (recent folders, thread records, app.info).

import { basename, posix, resolve } from 'node:path';
import { formatSshTarget, isSshFolder, parseSshTarget, sshTargetLabel, SshTargetError, type SshTarget } from '../../core/backends/remote/ssh-target';

export type LocalFolderLocation = { kind: 'local'; path: string };
export type SshFolderLocation = { kind: 'ssh'; target: SshTarget; url: string };
export type FolderLocation = LocalFolderLocation | SshFolderLocation;

/** A folder text that names no folder; the message says why, for the person. */
export class FolderLocationError extends Error {}

/** `ssh://…` as a remote folder (its canonical URL), anything else as a local path resolved from `base`. */
export function parseFolderLocation(text: string, base: string = process.cwd()): FolderLocation {
  if (isSshFolder(text.trim())) return sshFolderLocation(text.trim());
  return { kind: 'local', path: resolve(base, text) };
}

/** Throws FolderLocationError for a malformed URL. */
export function sshFolderLocation(url: string): SshFolderLocation {
  try {
    const target = parseSshTarget(url);
    return { kind: 'ssh', target, url: formatSshTarget(target) };
  } catch (err) {
    if (err instanceof SshTargetError) throw new FolderLocationError(err.message);
    throw err;
  }
}

/**
 * A remote folder as the window's dialog asks for it: `host` is `[USER@]HOST[:PORT]` (an
 * alias of ~/.ssh/config, a name or an address), `path` absolute on the remote.
 */
export function remoteFolderLocation(host: string, path: string): SshFolderLocation {
  const h = host.trim();
  const p = path.trim();
  if (h === '') throw new FolderLocationError('Enter the host: an alias from your ~/.ssh/config, or [user@]host[:port].');
  if (/[\s/]/.test(h) || h.startsWith('-')) throw new FolderLocationError(`“${h}” is not a host: use an alias from your ~/.ssh/config, or [user@]host[:port].`);
  if (p === '') throw new FolderLocationError('Enter the folder’s path on the remote, e.g. /home/you/project.');
  if (!p.startsWith('/')) throw new FolderLocationError(`The path on the remote must be absolute (start with /): ${p}`);
  try {
    const target = parseSshTarget(`ssh://${h}${p.split('/').map(encodeURIComponent).join('/')}`);
    return { kind: 'ssh', target, url: formatSshTarget(target) };
  } catch (err) {
    if (err instanceof SshTargetError) throw new FolderLocationError(personMessage(err.message, h));
    throw err;
  }
}

/** What the location is called in a list or a title: the folder's own name. */
export function folderLocationName(location: FolderLocation): string {
  if (location.kind === 'local') return basename(location.path) || location.path;
  return posix.basename(location.target.path) || location.target.path;
}

/** The one text of the location: the local path, or the ssh:// URL. */
export function folderLocationText(location: FolderLocation): string {
  return location.kind === 'local' ? location.path : location.url;
}

/** `dev@box:2222:/srv/proj` — a remote folder as people write it in messages. */
export function remoteFolderLabel(location: SshFolderLocation): string {
  return `${sshTargetLabel(location.target)}:${location.target.path}`;
}

/** parseSshTarget's reasons name the URL; the dialog's person typed a host and a path. */
function personMessage(reason: string, host: string): string {
  if (reason.startsWith('invalid port')) return `The port in “${host}” must be a number from 1 to 65535.`;
  if (reason.startsWith('invalid user')) return `The user name in “${host}” is not one ssh takes.`;
  if (reason.startsWith("'..'")) return 'The path on the remote must not contain “..”: give the folder’s absolute path.';
  if (reason.startsWith('invalid path')) return 'The path on the remote is not a valid path.';
  return `“${host}” is not a host: use an alias from your ~/.ssh/config, or [user@]host[:port].`;
}
