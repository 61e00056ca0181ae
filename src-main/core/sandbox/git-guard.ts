// Keeps git from running, outside the sandbox, what a sandboxed command left behind. An
// existing `.git` is pinned in place and its hooks and config are read-only (bwrap mounts,
// Seatbelt rules), but where there was no `.git` (or no config) a command may create one:
// `git init`, then a hook. So the state is taken before the run and checked after it, when
// every process of the run is gone (the sandbox's pid namespace dies with it): new hooks
// are removed, and a new config keeps only settings that run nothing. Where `.git` was
// already protected, nothing is checked, so that hooks the person installs meanwhile in
// their own terminal are left alone.
import { lstatSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BlockedItem } from './blocked';

interface FileState {
  ino: number;
  size: number;
  mtimeMs: number;
}

export interface GitState {
  gitDir?: FileState;
  hooks: Map<string, FileState>;
  config?: string;
}

function stateOf(path: string): FileState | undefined {
  try {
    const s = lstatSync(path);
    return { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function listHooks(hooksDir: string): Map<string, FileState> {
  const hooks = new Map<string, FileState>();
  let names: string[];
  try {
    names = readdirSync(hooksDir);
  } catch {
    return hooks;
  }
  for (const name of names) {
    const state = stateOf(join(hooksDir, name));
    if (state) hooks.set(name, state);
  }
  return hooks;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export function captureGitState(projectDir: string): GitState {
  const gitDir = join(projectDir, '.git');
  const state: GitState = { hooks: new Map() };
  if (!isDirectory(gitDir)) return state;
  state.gitDir = stateOf(gitDir);
  state.hooks = listHooks(join(gitDir, 'hooks'));
  state.config = readText(join(gitDir, 'config'));
  return state;
}

const SAFE_KEYS: RegExp[] = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf)$/,
  /^extensions\.(objectformat|refstorage|worktreeconfig)$/,
  /^remote\.[^=]+\.(url|pushurl|fetch|tagopt|prune)$/,
  /^branch\.[^=]+\.(remote|merge|rebase|pushremote)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
  /^pull\.(rebase|ff)$/,
  /^push\.(default|autosetupremote)$/,
];

/** The config's keys (`section.sub.key`, lower-cased section and key), or undefined when it cannot be read plainly. */
export function configKeys(text: string): string[] | undefined {
  const keys: string[] = [];
  let section: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]$/.exec(line);
    if (header?.[1]) {
      section = header[2] === undefined ? header[1].toLowerCase() : `${header[1].toLowerCase()}.${header[2]}`;
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=|$)/.exec(line);
    if (!entry?.[1] || section === undefined || raw.trimEnd().endsWith('\\')) return undefined;
    keys.push(`${section}.${entry[1].toLowerCase()}`);
  }
  return keys;
}

export function isSafeConfig(text: string): boolean {
  const keys = configKeys(text);
  return keys !== undefined && keys.every((key) => SAFE_KEYS.some((re) => re.test(key)));
}

/** The config git init writes: what a new repository falls back to when its config was unsafe. */
const DEFAULT_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';

/** Undoes what the run did to git's executable state; says what it undid. */
export function enforceGitState(projectDir: string, before: GitState): BlockedItem[] {
  const gitDir = join(projectDir, '.git');
  if (!isDirectory(gitDir)) return [];
  const protectedBefore = before.gitDir !== undefined && before.config !== undefined;
  if (protectedBefore) return [];
  const items: BlockedItem[] = [];
  const hooksDir = join(gitDir, 'hooks');
  for (const [name, state] of before.gitDir === undefined ? listHooks(hooksDir) : new Map<string, FileState>()) {
    const old = before.hooks.get(name);
    const same = old && old.ino === state.ino && old.size === state.size && old.mtimeMs === state.mtimeMs;
    // git never runs `*.sample` files.
    if (same || name.endsWith('.sample')) continue;
    const path = join(hooksDir, name);
    rmSync(path, { recursive: true, force: true });
    items.push({ kind: 'write', path, why: 'a git hook would run outside the sandbox; removed' });
  }
  const configPath = join(gitDir, 'config');
  const config = readText(configPath);
  if (config !== undefined && config !== before.config && !(before.config === undefined && isSafeConfig(config))) {
    writeFileSync(configPath, before.config ?? DEFAULT_CONFIG);
    items.push({
      kind: 'write',
      path: configPath,
      why: before.config === undefined ? 'settings that run programs; reset' : 'a protected path; restored',
    });
  }
  return items;
}
