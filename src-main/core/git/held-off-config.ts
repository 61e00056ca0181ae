// What in a repository's config runs code, and how every git call Deepdesk makes
// (run-git.ts) holds it off (SPEC §7, §9): a folder that arrives with its own `.git` must not
// run anything its config names until the person runs git there themselves. Beside the table
// of what git reads (git-reads.ts): its `config` rows are what this table reads.
//
// Two ways, a class where git has one:
// - ALWAYS_HELD: given on every call whatever the config says (no hook, no fsmonitor, no pager,
//   no signing, only the transports Deepdesk allows);
// - REPOSITORY_CODE_KEYS: keys that name a program; when the repository's own config (its
//   `local` or `worktree` scope, what it includes among it) sets one, the call gives it again
//   on the command line (which wins over every file): the person's own value (global or
//   system) when they set it, else a value that runs nothing. Driver names (`filter.NAME.*`,
//   `diff.NAME.*`, `merge.NAME.*`) are found in the config itself, so a new name is covered.
// - CONDITIONAL INCLUDES: what a repository's config includes under a condition
//   (`includeIf "gitdir:…"`, `"onbranch:…"`, `"hasconfig:…"`) is evaluated by git wherever it
//   runs, and by the git processes a call starts in another place: `git worktree add` checks
//   the new worktree out in a child git whose git folder (`.git/worktrees/NAME`) and branch
//   (`deepdesk/NAME`) are not the call's, so a smudge filter named only for them ran there.
//   So every include of the repository's scopes counts as taken, whatever its condition
//   (includedPaths; run-git.ts reads each file, and the files they include in turn, as the
//   repository's own), and what they set is held off as the rest is: the `-c` values reach
//   every child git (GIT_CONFIG_PARAMETERS) and win over every file, included ones too.
// Where an empty value would break the command rather than turn the program off, the value is
// git's own built-in (a merge driver, `:` for an editor), or it fails closed (a textconv:
// Deepdesk's diffs pass `--no-textconv --no-ext-diff`). `uploadpack.packObjectsHook` is not
// here: git itself ignores it in a repository's config (and would honour it on the command line).

import { dirname, isAbsolute, resolve } from 'node:path';

/** Given to git before every subcommand (`-c key=value`). */
export const ALWAYS_HELD: readonly string[] = [
  // Hooks never run (a clone holds none, but nothing is left to chance).
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'protocol.allow=never',
  'protocol.file.allow=always',
  'protocol.ssh.allow=always',
  'protocol.git.allow=always',
  'protocol.http.allow=always',
  'protocol.https.allow=always',
  'protocol.ext.allow=never',
  'submodule.recurse=false',
  // A signing program could ask for a passphrase in a window nobody sees.
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'core.pager=cat',
  'advice.detachedHead=false',
  // No background `git gc` left running after the call.
  'gc.autoDetach=false',
  'maintenance.auto=false',
  'credential.interactive=false',
];

/**
 * Every diff Deepdesk shows or sends: git's own text of the change, whatever the repository's
 * config or attributes say (no textconv or external driver, no colour, no renames folded in,
 * the whole tree from the root, the usual a/ and b/ prefixes). `config` goes before `diff`.
 */
export const PLAIN_DIFF = {
  config: ['-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false'],
  args: ['--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--no-relative', '--submodule=short', '--src-prefix=a/', '--dst-prefix=b/'],
} as const;

export interface CodeKey {
  /** The key, lower-cased as git lists it (`filter.NAME.clean`: any driver name). */
  key: RegExp;
  /** What git runs with it. */
  runs: string;
  /** The value given when the person set none: runs nothing, or git's own built-in. */
  neutral: string;
  /** A list (every value is used): emptied, then the person's values given again in order. */
  list?: true;
}

export const REPOSITORY_CODE_KEYS: readonly CodeKey[] = [
  { key: /^filter\..+\.(clean|smudge|process)$/, runs: 'a filter driver on checkout, add, status and diff', neutral: '' },
  { key: /^filter\..+\.required$/, runs: 'nothing, but makes an emptied filter an error', neutral: 'false' },
  { key: /^diff\..+\.(textconv|command)$/, runs: 'a diff driver or text converter', neutral: '' },
  { key: /^diff\.external$/, runs: 'an external diff program', neutral: '' },
  { key: /^merge\..+\.driver$/, runs: 'a merge driver (merge-tree, merge, cherry-pick)', neutral: 'git merge-file --marker-size=%L %A %O %B' },
  { key: /^core\.editor$|^sequence\.editor$/, runs: 'an editor (commit, rebase)', neutral: ':' },
  { key: /^core\.(askpass|alternaterefscommand)$/, runs: 'a password prompt, an alternates lister', neutral: '' },
  { key: /^pager\..+$/, runs: 'a pager for one command', neutral: 'false' },
  { key: /^gpg\.(.+\.)?program$|^gpg\.ssh\.defaultkeycommand$/, runs: 'a signing program', neutral: '' },
  { key: /^credential\.(.+\.)?helper$/, runs: 'a credential helper on fetch and push', neutral: '', list: true },
  { key: /^remote\..+\.uploadpack$/, runs: 'the upload-pack program of a local remote', neutral: 'git-upload-pack' },
  { key: /^remote\..+\.receivepack$/, runs: 'the receive-pack program of a local remote', neutral: 'git-receive-pack' },
  { key: /^submodule\..+\.update$/, runs: '`!command` updates of a submodule', neutral: 'checkout' },
  { key: /^tar\..+\.command$/, runs: 'an archive filter', neutral: '' },
  { key: /^interactive\.difffilter$/, runs: 'a filter of interactive diffs', neutral: '' },
];

/**
 * Held off through the environment instead (run-git.ts gitEnv), because there the environment
 * wins over every config file: `core.sshCommand` (GIT_SSH_COMMAND is always set) and
 * `core.gitProxy` (GIT_PROXY_COMMAND, set empty when the repository names a proxy).
 */
export const ENV_HELD_KEYS: readonly RegExp[] = [/^core\.sshcommand$/, /^core\.gitproxy$/];

/** One line of `git config --list --show-scope -z`. */
export interface ScopedValue {
  scope: string;
  key: string;
  value: string;
}

/** Section and name lower-cased; a subsection (`filter.MyDriver.clean`) as written. */
function lowerKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first < 0) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

/** One line of `git config --list --show-scope --show-origin -z`: with the file it comes from (`file:PATH`, relative to where git ran). */
export interface OriginValue extends ScopedValue {
  origin: string;
}

/** `git config --list --show-scope --show-origin -z`. */
export function parseOriginList(text: string): OriginValue[] {
  const fields = text.split('\0');
  const out: OriginValue[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [entry] = parseKeyValues(`${fields[i + 2]!}\0`);
    if (entry) out.push({ ...entry, scope: fields[i]!, origin: fields[i + 1]! });
  }
  return out;
}

/** `git config --file F --list -z` (key, value) as the repository's own (`local`). */
export function parseKeyValues(text: string): ScopedValue[] {
  const out: ScopedValue[] = [];
  for (const line of text.split('\0')) {
    if (line === '') continue;
    const nl = line.indexOf('\n');
    out.push({ scope: 'local', key: lowerKey(nl < 0 ? line : line.slice(0, nl)), value: nl < 0 ? 'true' : line.slice(nl + 1) });
  }
  return out;
}

/** `include.path` and `includeIf.<condition>.path`: a config file read as part of this one. */
export function isIncludeKey(key: string): boolean {
  const lower = key.toLowerCase();
  return (lower.startsWith('include.') || lower.startsWith('includeif.')) && lower.endsWith('.path');
}

/**
 * Where an include leads, as git resolves it: `~/` from the home folder, a relative path from
 * the folder of the file that names it; undefined for what only git's installation resolves
 * (`%(prefix)/`) and for an empty value.
 */
export function includeTarget(value: string, fromFile: string, home: string): string | undefined {
  if (value === '' || value.startsWith('%(prefix)/')) return undefined;
  if (value === '~' || value.startsWith('~/')) return resolve(home, value.slice(2));
  return isAbsolute(value) ? resolve(value) : resolve(dirname(fromFile), value);
}

/**
 * The files the repository's own config includes, each include taken whatever its condition
 * (see CONDITIONAL INCLUDES above): absolute paths, `cwd` being where the listing ran.
 */
export function includedPaths(config: readonly OriginValue[], cwd: string, home: string): string[] {
  const paths: string[] = [];
  for (const v of config) {
    if (!REPOSITORY_SCOPES.has(v.scope) || !isIncludeKey(v.key) || !v.origin.startsWith('file:')) continue;
    const target = includeTarget(v.value, resolve(cwd, v.origin.slice('file:'.length)), home);
    if (target !== undefined) paths.push(target);
  }
  return paths;
}

/** The repository's own scopes: what arrives with a folder. */
export const REPOSITORY_SCOPES: ReadonlySet<string> = new Set(['local', 'worktree']);

/** Whether a key names a program git runs. */
export function codeKey(key: string): CodeKey | undefined {
  const lower = key.toLowerCase();
  return REPOSITORY_CODE_KEYS.find((row) => row.key.test(lower));
}

/**
 * The `-c` settings (`key=value`) that hold off what the repository's own config runs, given
 * everything the config holds: the person's values where they set the key, else the neutral one.
 */
export function heldOffSettings(config: readonly ScopedValue[]): string[] {
  const settings: string[] = [];
  const done = new Set<string>();
  for (const { scope, key } of config) {
    if (!REPOSITORY_SCOPES.has(scope) || done.has(key)) continue;
    const row = codeKey(key);
    if (row === undefined) continue;
    done.add(key);
    const persons = config.filter((v) => v.key === key && !REPOSITORY_SCOPES.has(v.scope) && v.scope !== 'command').map((v) => v.value);
    if (row.list) settings.push(`${key}=`, ...persons.map((value) => `${key}=${value}`));
    else settings.push(`${key}=${persons.at(-1) ?? row.neutral}`);
  }
  return settings;
}

/** Whether the repository's own config names a proxy program (held off through GIT_PROXY_COMMAND). */
export function namesGitProxy(config: readonly ScopedValue[]): boolean {
  return config.some((v) => REPOSITORY_SCOPES.has(v.scope) && ENV_HELD_KEYS[1]!.test(v.key));
}
