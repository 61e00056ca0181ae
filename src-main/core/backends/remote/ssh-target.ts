// A remote folder as the person names it (SPEC §13): `ssh://[USER@]HOST[:PORT]/ABS/PATH`.
// HOST may be an alias of the person's ~/.ssh/config (the system ssh resolves it), an IPv6
// literal in brackets, or a name; the path is absolute on the remote.

export interface SshTarget {
  /** As given to ssh: a config alias, a name or an address (IPv6 without brackets). */
  host: string;
  user?: string;
  port?: number;
  /** Absolute, normalised (no `.`/`..` segments, no trailing slash except `/`). */
  path: string;
}

export class SshTargetError extends Error {}

const SCHEME = 'ssh://';
/** What ssh itself accepts in a host name or alias, and nothing it would read as an option. */
const HOST = /^[A-Za-z0-9_][A-Za-z0-9_.%-]*$/;
const USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function isSshFolder(value: string): boolean {
  return value.toLowerCase().startsWith(SCHEME);
}

/** Parses `ssh://[USER@]HOST[:PORT]/ABS/PATH`; throws SshTargetError with the reason. */
export function parseSshTarget(value: string): SshTarget {
  if (!isSshFolder(value)) throw new SshTargetError(`not an ssh:// folder: ${value}`);
  const rest = value.slice(SCHEME.length);
  const slash = rest.indexOf('/');
  if (slash < 0) throw new SshTargetError(`missing the folder's absolute path in ${value} (ssh://[USER@]HOST[:PORT]/ABS/PATH)`);
  const authority = rest.slice(0, slash);
  const rawPath = decodePath(rest.slice(slash), value);

  let hostPort = authority;
  let user: string | undefined;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    user = decodeURIComponent(authority.slice(0, at));
    hostPort = authority.slice(at + 1);
    if (!USER.test(user)) throw new SshTargetError(`invalid user name in ${value}`);
  }

  let host: string;
  let portText: string | undefined;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) throw new SshTargetError(`unclosed [ in the host of ${value}`);
    host = hostPort.slice(1, close);
    if (!/^[0-9A-Fa-f:.]+$/.test(host)) throw new SshTargetError(`invalid IPv6 address in ${value}`);
    const after = hostPort.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw new SshTargetError(`invalid host in ${value}`);
    portText = after === '' ? undefined : after.slice(1);
  } else {
    const colon = hostPort.lastIndexOf(':');
    host = colon >= 0 ? hostPort.slice(0, colon) : hostPort;
    portText = colon >= 0 ? hostPort.slice(colon + 1) : undefined;
    if (!HOST.test(host)) throw new SshTargetError(host === '' ? `missing host in ${value}` : `invalid host in ${value}`);
  }

  let port: number | undefined;
  if (portText !== undefined) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 1 && port <= 65_535)) throw new SshTargetError(`invalid port in ${value}`);
  }
  return { host, ...(user !== undefined ? { user } : {}), ...(port !== undefined ? { port } : {}), path: normalizeRemotePath(rawPath, value) };
}

/** The canonical text of a target (what recent folders and thread records keep). */
export function formatSshTarget(target: SshTarget): string {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  const path = target.path.split('/').map(encodeURIComponent).join('/');
  return `${SCHEME}${target.user !== undefined ? `${target.user}@` : ''}${host}${target.port !== undefined ? `:${target.port}` : ''}${path}`;
}

/** `[USER@]HOST[:PORT]` for messages (`Error: lost the connection to dev@box:2222`). */
export function sshTargetLabel(target: SshTarget): string {
  return `${target.user !== undefined ? `${target.user}@` : ''}${target.host}${target.port !== undefined ? `:${target.port}` : ''}`;
}

function decodePath(raw: string, value: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new SshTargetError(`invalid %-escape in the path of ${value}`);
  }
}

function normalizeRemotePath(path: string, value: string): string {
  if (path.includes('\0')) throw new SshTargetError(`invalid path in ${value}`);
  const parts: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') throw new SshTargetError(`'..' in the path of ${value}: give the folder's absolute path`);
    parts.push(segment);
  }
  return `/${parts.join('/')}`;
}
