// Which git remote URLs a git mount accepts (SPEC §13), and how they are shown. Only the
// transports that move data and nothing else: file, ssh, git, http(s). `ext::` and every
// other `helper::address` form would make git run a program named by the URL; a leading
// `-` would be read as an option.

export type GitTransport = 'file' | 'ssh' | 'git' | 'http' | 'https';

export type GitUrlCheck = { ok: true; url: string; label: string; transport: GitTransport } | { ok: false; error: string };

const SCHEMES: Record<string, GitTransport> = {
  file: 'file',
  ssh: 'ssh',
  'git+ssh': 'ssh',
  'ssh+git': 'ssh',
  git: 'git',
  http: 'http',
  https: 'https',
};

export function checkGitUrl(input: string): GitUrlCheck {
  const url = input.trim();
  if (url === '') return { ok: false, error: 'the git remote URL is empty' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(url)) return { ok: false, error: 'the git remote URL holds control characters' };
  if (url.startsWith('-')) return { ok: false, error: `the git remote URL '${url}' starts with '-'` };
  if (url.includes('::')) return { ok: false, error: `git remote '${redact(url)}' names a transport helper ('::'); only file://, ssh://, git://, http:// and https:// remotes are mounted` };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (scheme) {
    const transport = SCHEMES[scheme[1]!.toLowerCase()];
    if (transport === undefined) return { ok: false, error: `git remote '${redact(url)}' uses the ${scheme[1]}:// transport; only file://, ssh://, git://, http:// and https:// remotes are mounted` };
    return { ok: true, url, label: redact(url), transport };
  }
  if (url.startsWith('/')) return { ok: true, url, label: url, transport: 'file' };
  // scp-like `[user@]host:path` (ssh); a colon after a slash is a relative path, which is refused.
  const scp = /^(?:[^@/:]+@)?([^@/:]+):(.*)$/.exec(url);
  if (scp && !scp[1]!.startsWith('-')) return { ok: true, url, label: url, transport: 'ssh' };
  return { ok: false, error: `'${url}' is not a git remote URL (file://, ssh://, git://, http://, https://, an absolute path or user@host:path)` };
}

/** The URL without its credentials: never a password; for http(s) not the user either (often a token). */
export function redact(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^@/]*)@/, (_all, scheme: string, userinfo: string) => {
    if (/^https?:\/\/$/i.test(scheme)) return scheme;
    const user = userinfo.split(':')[0] ?? '';
    return user === '' ? scheme : `${scheme}${user}@`;
  });
}

/** Replaces every credential-bearing URL in a text (git's messages can quote the URL as given). */
export function redactText(text: string, url: string): string {
  const label = redact(url);
  return text.split(url).join(label).replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s@/'"]*:[^\s@/'"]*@/g, '$1');
}
