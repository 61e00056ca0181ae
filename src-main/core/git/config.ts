// Reading git config files plainly enough to judge them: which keys they set, whether any
// of them can make git run a program or look elsewhere for its repository, and which files
// and programs inside the folder they name (an include, a hooks folder, a program path).
import { dirname, isAbsolute, resolve } from 'node:path';

export interface ConfigEntry {
  /** `section.sub.key`, section and key lower-cased. */
  key: string;
  value: string;
}

/** The config's entries, or undefined when it cannot be read plainly (git may read it otherwise). */
export function parseConfig(text: string): ConfigEntry[] | undefined {
  const entries: ConfigEntry[] = [];
  let section: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]$/.exec(line);
    if (header?.[1]) {
      section = header[2] === undefined ? header[1].toLowerCase() : `${header[1].toLowerCase()}.${header[2]}`;
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!entry?.[1] || section === undefined || raw.trimEnd().endsWith('\\')) return undefined;
    entries.push({ key: `${section}.${entry[1].toLowerCase()}`, value: unquote(entry[2] ?? 'true') });
  }
  return entries;
}

function unquote(value: string): string {
  const withoutComment = value.replace(/\s[#;].*$/, '').trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(withoutComment);
  return quoted?.[1] !== undefined ? quoted[1].replace(/\\(.)/g, '$1') : withoutComment;
}

/** Keys that neither run anything nor move the repository. */
const SAFE_KEYS: RegExp[] = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|worktree)$/,
  /^extensions\.(objectformat|refstorage|worktreeconfig)$/,
  /^remote\.[^=]+\.(url|pushurl|fetch|tagopt|prune)$/,
  /^branch\.[^=]+\.(remote|merge|rebase|pushremote)$/,
  /^submodule\.[^=]+\.(url|active)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
  /^pull\.(rebase|ff)$/,
  /^push\.(default|autosetupremote)$/,
];

export function isSafeKey(key: string): boolean {
  return SAFE_KEYS.some((re) => re.test(key));
}

/** A config that only sets keys which run nothing (an unreadable one is not inert). */
export function isInertConfig(text: string): boolean {
  const entries = parseConfig(text);
  return entries !== undefined && entries.every((e) => isSafeKey(e.key));
}

/** The config git init writes: what a new repository falls back to when its config was unsafe. */
export const DEFAULT_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';

/** Keeps only the inert entries of a config (a fresh default when it cannot be read plainly). */
export function inertPart(text: string): string {
  const entries = parseConfig(text);
  if (entries === undefined) return DEFAULT_CONFIG;
  const bySection = new Map<string, string[]>();
  for (const { key, value } of entries.filter((e) => isSafeKey(e.key))) {
    const dot = key.lastIndexOf('.');
    const section = key.slice(0, dot);
    const lines = bySection.get(section) ?? [];
    lines.push(`\t${key.slice(dot + 1)} = ${JSON.stringify(value)}`);
    bySection.set(section, lines);
  }
  if (bySection.size === 0) return DEFAULT_CONFIG;
  return [...bySection]
    .map(([section, lines]) => {
      const first = section.indexOf('.');
      const header = first < 0 ? `[${section}]` : `[${section.slice(0, first)} ${JSON.stringify(section.slice(first + 1))}]`;
      return `${header}\n${lines.join('\n')}\n`;
    })
    .join('');
}

export interface NamedFiles {
  /** Config files this one includes (absolute). */
  includes: string[];
  /** `core.hooksPath` folders (absolute). */
  hookFolders: string[];
  /** Programs named by keys that run them (absolute; relative ones resolved against each base). */
  programs: string[];
}

/**
 * What a config names on disk: git reads the includes as config, runs the hooks in
 * `core.hooksPath`, and runs the programs of keys such as `core.fsmonitor`. Relative
 * include paths are relative to the config file; hooks and programs run from the work tree
 * (`workTree`), and a bare word is looked up on PATH (not ours to guard).
 */
export function namedFiles(text: string, configPath: string, workTree: string | undefined, home: string): NamedFiles {
  const named: NamedFiles = { includes: [], hookFolders: [], programs: [] };
  const expand = (value: string, base: string): string | undefined => {
    if (value === '') return undefined;
    if (value === '~' || value.startsWith('~/')) return resolve(home, value.slice(2));
    if (isAbsolute(value)) return resolve(value);
    return resolve(base, value);
  };
  for (const { key, value } of parseConfig(text) ?? []) {
    if (/^include(?:if\.[^=]+)?\.path$/.test(key)) {
      const path = expand(value, dirname(configPath));
      if (path) named.includes.push(path);
    } else if (key === 'core.hookspath') {
      const path = expand(value, workTree ?? dirname(configPath));
      if (path) named.hookFolders.push(path);
    } else if (!isSafeKey(key)) {
      // The first word of a command; only a path (not a name looked up on PATH) is in the folder.
      const word = /^\s*!?\s*("([^"]+)"|'([^']+)'|\S+)/.exec(value);
      const program = word?.[2] ?? word?.[3] ?? word?.[1];
      if (!program || !/[/~]/.test(program)) continue;
      for (const base of new Set([workTree, dirname(configPath)])) {
        const path = base === undefined ? undefined : expand(program, base);
        if (path) named.programs.push(path);
      }
    }
  }
  return named;
}
