// `--mount /PREFIX/=SPEC` and Settings › Mounts (SPEC §13): what one mount is, parsed and
// checked before anything is opened. SPEC is a local folder (`ro:` before it for read-only)
// or a git remote `git+URL[#BRANCH]`. Free of Node imports: the window checks what the
// person types with the same parser (and the same messages).

export class MountSpecError extends Error {}

/** Prefixes the default mount table owns (SPEC §1, §11): no mount goes at or below them. */
export const RESERVED_MOUNT_PREFIXES = ['/memories/', '/large_tool_results/', '/conversation_history/', '/attachments/', '/skills/'] as const;

export type MountSource = { kind: 'local'; path: string; readOnly: boolean } | { kind: 'git'; url: string; branch?: string };

export interface MountSpec {
  /** Normalised, ends with '/', e.g. '/docs/'. */
  prefix: string;
  source: MountSource;
  /** As given. */
  text: string;
}

export interface MountPathOptions {
  /** The home folder `~` stands for; without it `~` is kept as written (the window's check). */
  home?: string;
  /** Joins a relative folder onto `base` (default: a POSIX join); Node callers pass path.resolve. */
  resolve?: (base: string, path: string) => string;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const GLOB_CHARS = /[*?[\]{}]/;

/** `/PREFIX/=SPEC`; a relative folder is taken relative to `base` (refused without one). */
export function parseMountSpec(flag: string, base?: string, options: MountPathOptions = {}): MountSpec {
  if (typeof flag !== 'string') throw new MountSpecError('a mount must be text: /PREFIX/=SPEC');
  const eq = flag.indexOf('=');
  if (eq < 0) throw new MountSpecError(`'${shown(flag)}' is not /PREFIX/=SPEC (e.g. /docs/=ro:~/docs or /notes/=git+ssh://git@host/notes.git)`);
  const prefix = parseMountPrefix(flag.slice(0, eq));
  const source = parseMountSource(flag.slice(eq + 1), base, options);
  return { prefix, source, text: flag };
}

/** A mount prefix, normalised to `/a/b/`; throws MountSpecError saying why it cannot be one. */
export function parseMountPrefix(text: string): string {
  if (text.trim() === '') throw new MountSpecError('the mount prefix is empty: give a folder such as /docs/');
  if (CONTROL.test(text)) throw new MountSpecError(`the mount prefix '${shown(text)}' contains a control character or NUL byte`);
  if (text !== text.trim()) throw new MountSpecError(`the mount prefix '${shown(text)}' starts or ends with a space`);
  if (text.includes('\\')) throw new MountSpecError(`the mount prefix '${shown(text)}' contains '\\': use / between folders`);
  if (!text.startsWith('/')) throw new MountSpecError(`the mount prefix '${shown(text)}' must be absolute, e.g. /${text.replace(/^\/*/, '')}`);
  const inner = text.endsWith('/') ? text.slice(1, -1) : text.slice(1);
  if (inner === '') throw new MountSpecError("'/' is the project folder: mount at a folder below it, e.g. /docs/");
  const segments = inner.split('/');
  for (const segment of segments) {
    if (segment === '') throw new MountSpecError(`the mount prefix '${shown(text)}' has an empty folder name ('//')`);
    if (segment === '.' || segment === '..') throw new MountSpecError(`the mount prefix '${shown(text)}' contains '${segment}'`);
    if (segment.startsWith('~')) throw new MountSpecError(`the mount prefix '${shown(text)}' has a folder starting with '~'`);
    if (GLOB_CHARS.test(segment)) throw new MountSpecError(`the mount prefix '${shown(text)}' contains a glob character (* ? [ ] { })`);
  }
  const prefix = `/${segments.join('/')}/`;
  const reserved = RESERVED_MOUNT_PREFIXES.find((r) => prefix.startsWith(r));
  if (reserved !== undefined) throw new MountSpecError(`${reserved} is Deepdesk's own folder: choose another prefix than ${prefix}`);
  return prefix;
}

/** The part after `=`: `[ro:]FOLDER` or `git+URL[#BRANCH]`. */
export function parseMountSource(text: string, base?: string, options: MountPathOptions = {}): MountSource {
  if (CONTROL.test(text)) throw new MountSpecError(`the mount source '${shown(text)}' contains a control character or NUL byte`);
  const spec = text.trim();
  if (spec === '') throw new MountSpecError('the mount source is empty: give a folder (ro: for read-only) or git+URL[#BRANCH]');
  if (spec.startsWith('git+')) return parseGitSource(spec.slice(4));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) {
    throw new MountSpecError(`'${shown(spec)}' is not a mount source: a git remote is git+URL (git+https://…, git+ssh://…, git+file://…), anything else a local folder`);
  }
  const readOnly = spec.startsWith('ro:');
  const folder = readOnly ? spec.slice(3).trim() : spec;
  if (folder === '') throw new MountSpecError('ro: needs a folder after it, e.g. ro:~/docs');
  return { kind: 'local', path: localPath(folder, base, options), readOnly };
}

function localPath(folder: string, base: string | undefined, options: MountPathOptions): string {
  const join = options.resolve ?? posixResolve;
  if (folder === '~' || folder.startsWith('~/')) {
    return options.home === undefined ? folder : join(options.home, folder === '~' ? '.' : folder.slice(2));
  }
  if (folder.startsWith('~')) throw new MountSpecError(`'${shown(folder)}': only your own home folder (~/…) can be named with ~`);
  if (isAbsoluteFolder(folder)) return options.resolve ? options.resolve('/', folder) : posixResolve('/', folder);
  if (base === undefined) throw new MountSpecError(`'${shown(folder)}' is a relative folder: give an absolute path or ~/…`);
  return join(base, folder);
}

/** A POSIX absolute path, or a Windows one (`C:\…`, `\\server\…`). */
export function isAbsoluteFolder(folder: string): boolean {
  return folder.startsWith('/') || /^[A-Za-z]:[\\/]/.test(folder) || folder.startsWith('\\\\');
}

function posixResolve(base: string, path: string): string {
  const out: string[] = [];
  for (const segment of `${path.startsWith('/') ? '' : base}/${path}`.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return '/' + out.join('/');
}

const GIT_SCHEMES = ['file:', 'ssh:', 'http:', 'https:', 'git:'];
const SCP_LIKE = /^(?:([^@/:\s]+)@)?([^@/:\s]+):(.+)$/;

function parseGitSource(rest: string): MountSource {
  const hash = rest.lastIndexOf('#');
  const url = hash < 0 ? rest : rest.slice(0, hash);
  const branch = hash < 0 ? undefined : rest.slice(hash + 1);
  if (url === '') throw new MountSpecError('git+ needs a URL: git+https://host/repo.git, git+ssh://user@host/repo.git, git+file:///path/repo.git or git+user@host:repo.git');
  if (/\s/.test(url)) throw new MountSpecError(`the git URL '${shown(url)}' contains a space`);
  if (branch !== undefined) checkBranch(branch);
  // `helper::address` would make git run the helper the URL names.
  if (url.includes('::')) throw new MountSpecError(`'${shown(url)}' is not a git URL: transport helpers (::) are not mounted; use file://, ssh://, http(s)://, git:// or user@host:path`);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!GIT_SCHEMES.includes(`${scheme}:`)) throw new MountSpecError(`git+${scheme}:// is not supported: use file://, ssh://, http://, https:// or git://`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new MountSpecError(`'${shown(url)}' is not a valid URL`);
    }
    if (scheme !== 'file' && (parsed.hostname === '' || url.slice(scheme.length + 3).startsWith('/'))) throw new MountSpecError(`the git URL '${shown(url)}' names no host`);
    if (parsed.hostname.startsWith('-') || decodeURIComponent(parsed.username).startsWith('-')) throw new MountSpecError(`the git URL '${shown(url)}' has a host or user starting with '-'`);
    if (parsed.password !== '') throw new MountSpecError('the git URL carries a password: keep it in a git credential helper (or ~/.netrc), not in the mount');
    if (scheme === 'file' && (parsed.pathname === '' || parsed.pathname === '/')) throw new MountSpecError(`'${shown(url)}' names no repository`);
    return { kind: 'git', url, ...(branch !== undefined ? { branch } : {}) };
  }
  const scp = SCP_LIKE.exec(url);
  if (scp === null) {
    throw new MountSpecError(`'${shown(url)}' is not a git URL: use file://, ssh://, http(s)://, git:// or user@host:path`);
  }
  const [, user, host, path] = scp;
  if (host!.startsWith('-') || user?.startsWith('-') || path!.startsWith('-')) throw new MountSpecError(`the git URL '${shown(url)}' has a part starting with '-'`);
  return { kind: 'git', url, ...(branch !== undefined ? { branch } : {}) };
}

/** git's own rules for a branch name (git check-ref-format), so git never reads one as an option. */
function checkBranch(branch: string): void {
  const why =
    branch === ''
      ? 'is empty'
      : branch.startsWith('-')
        ? "starts with '-'"
        : /[\s~^:?*[\\]/.test(branch) || branch.includes('..') || branch.includes('@{') || branch === '@'
          ? 'contains a character git does not allow in a branch'
          : branch.startsWith('/') || branch.endsWith('/') || branch.includes('//') || branch.endsWith('.') || branch.endsWith('.lock') || branch.split('/').some((s) => s.startsWith('.'))
            ? 'is not a valid branch name'
            : null;
  if (why !== null) throw new MountSpecError(`the branch '${shown(branch)}' ${why}`);
}

/** Refuses two mounts at one prefix (the table lists each prefix once). */
export function checkMountTable(specs: readonly MountSpec[]): void {
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.prefix)) throw new MountSpecError(`${spec.prefix} is mounted twice: give each prefix once`);
    seen.add(spec.prefix);
  }
}

/** What a mount shows of its source: the folder (with ro:), or the URL without a password. */
export function describeMountSource(source: MountSource): string {
  if (source.kind === 'local') return `${source.readOnly ? 'ro:' : ''}${source.path}`;
  return `git+${withoutPassword(source.url)}${source.branch !== undefined ? `#${source.branch}` : ''}`;
}

function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1@');
}

function shown(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
