// The hosts a person can pick in `Open remote folder` (SPEC §13): the `Host` aliases of their
// ~/.ssh/config, following `Include` as ssh does (relative paths from ~/.ssh, `~` and glob
// patterns expanded, at most 16 levels), without wildcard patterns (`*`, `?`) and negations
// (`!name`), which name no one host. Only listed here: connecting is the system ssh's job,
// which reads the same file itself.

import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';

export interface SshConfigHostsOptions {
  /** The config file to read (default: DEEPDESK_SSH_CONFIG, else `<home>/.ssh/config`). */
  configPath?: string;
  /** Where `~` and relative `Include` paths start (default: the home folder). */
  home?: string;
  env?: NodeJS.ProcessEnv;
}

/** ssh's own limit on nested Include. */
const MAX_INCLUDE_DEPTH = 16;
/** Bounds for a config that is not one (a huge or generated file, an Include of a wide glob). */
const MAX_CONFIG_BYTES = 1024 * 1024;
const MAX_CONFIG_FILES = 256;
export const MAX_LISTED_HOSTS = 500;

/**
 * The config file listed: DEEPDESK_SSH_CONFIG (tests, or a person who keeps it elsewhere), else
 * ~/.ssh/config. Only the list: ssh reads its own config (from the passwd entry's home), so a
 * file kept elsewhere also needs DEEPDESK_SSH_COMMAND='ssh -F FILE' for its aliases to connect.
 */
export function sshConfigPath(options: SshConfigHostsOptions = {}): string {
  const fromEnv = (options.env ?? process.env).DEEPDESK_SSH_CONFIG;
  return options.configPath ?? (fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv.trim() : join(options.home ?? homedir(), '.ssh', 'config'));
}

/** The Host aliases in file order, each once; a missing or unreadable file lists none. */
export async function sshConfigHosts(options: SshConfigHostsOptions = {}): Promise<string[]> {
  const home = options.home ?? homedir();
  const hosts = new Set<string>();
  const seenFiles = new Set<string>();

  const readConfig = async (file: string, depth: number): Promise<void> => {
    if (depth > MAX_INCLUDE_DEPTH || seenFiles.has(file) || seenFiles.size >= MAX_CONFIG_FILES) return;
    seenFiles.add(file);
    let text: string;
    try {
      const bytes = await readFile(file);
      text = bytes.subarray(0, MAX_CONFIG_BYTES).toString('utf8');
    } catch {
      return;
    }
    for (const { keyword, args } of configLines(text)) {
      if (hosts.size >= MAX_LISTED_HOSTS) return;
      if (keyword === 'host') {
        for (const pattern of args) if (isPlainHost(pattern)) hosts.add(pattern);
      } else if (keyword === 'include') {
        for (const arg of args) {
          for (const included of await expandInclude(arg, home)) await readConfig(included, depth + 1);
        }
      }
    }
  };

  await readConfig(sshConfigPath({ ...options, home }), 0);
  return [...hosts].slice(0, MAX_LISTED_HOSTS);
}

/** One `keyword args…` per line (`keyword=args` too), comments and blank lines skipped, "quoted args" kept whole. */
export function* configLines(text: string): Generator<{ keyword: string; args: string[] }> {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z]+)\s*(?:=\s*|\s+)(.*)$/.exec(line);
    if (match === null) continue;
    yield { keyword: match[1]!.toLowerCase(), args: splitArgs(match[2]!) };
  }
}

function splitArgs(text: string): string[] {
  const args: string[] = [];
  const word = /"([^"]*)"|(\S+)/g;
  for (let m = word.exec(text); m !== null; m = word.exec(text)) {
    const value = m[1] ?? m[2]!;
    // An unquoted `#` starts a trailing comment.
    if (m[1] === undefined && value.startsWith('#')) break;
    if (value !== '') args.push(value);
  }
  return args;
}

/** A name one host answers to: no wildcard, no negation (what `Host *` or `Host !bastion` say is a rule, not a host). */
function isPlainHost(pattern: string): boolean {
  return !/[*?!]/.test(pattern) && /^[A-Za-z0-9_][A-Za-z0-9_.%-]*$/.test(pattern);
}

/** The files an `Include` argument names, sorted as glob(3) gives them. */
async function expandInclude(arg: string, home: string): Promise<string[]> {
  let path = arg.startsWith('~/') ? join(home, arg.slice(2)) : arg === '~' ? home : arg;
  if (!isAbsolute(path)) path = join(home, '.ssh', path);
  if (!/[*?[]/.test(path)) return [path];
  const parts = path.split('/').filter((part) => part !== '');
  let found = ['/'];
  for (const [index, part] of parts.entries()) {
    const last = index === parts.length - 1;
    const next: string[] = [];
    for (const dir of found) {
      if (!/[*?[]/.test(part)) {
        next.push(join(dir, part));
        continue;
      }
      const matcher = segmentMatcher(part);
      let names: string[];
      try {
        names = (await readdir(dir, { withFileTypes: true })).filter((e) => last || e.isDirectory() || e.isSymbolicLink()).map((e) => e.name);
      } catch {
        continue;
      }
      for (const name of names.sort()) if (matcher.test(name) && !(name.startsWith('.') && !part.startsWith('.'))) next.push(join(dir, name));
    }
    found = next;
  }
  return found.filter((file) => dirname(file) !== file);
}

/** One path segment's glob (`*`, `?`, `[...]`) as a regular expression. */
function segmentMatcher(segment: string): RegExp {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) source += '\\[';
      else {
        let body = segment.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        source += `[${body.replaceAll('\\', '\\\\')}]`;
        i = close;
      }
    } else source += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
