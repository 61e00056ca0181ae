// The files inside the folder that a folder's configuration entry runs or loads (SPEC §9
// "What is trusted is exactly what was shown, and what it runs"): a hook's script named in
// its command, an unsandboxed server's script among its command, arguments and environment.
// Their state (content, or absence, or where a link leads) is part of the entry's digest, so
// a change stops the entry loading until it is trusted again; the sandbox keeps them
// read-only and the agent's writes to them ask (protected-entry-files.ts).
//
// Which words are folder paths cannot be known for every program, so every word of the
// command that names a place inside the folder counts (a relative path, an absolute one,
// `${CLAUDE_PROJECT_DIR}/…`, `--opt=path`): over-counting only asks once more.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { isAbsolute, join, normalize, relative, resolve } from 'node:path';
import type { CheckedServerEntry } from './mcp-config';
import type { HookEntry } from '../extensions/hooks/types';
import { existsNoFollow } from '../fs/file-checks';
import { isPathBelow } from '../fs/path-inside';

/** How hooks and servers name the folder in their commands. */
const PROJECT_DIR = /\$\{(?:CLAUDE_PROJECT_DIR|DEEPDESK_PROJECT_DIR)\}|\$(?:CLAUDE_PROJECT_DIR|DEEPDESK_PROJECT_DIR)(?![A-Za-z0-9_])/g;
/** Bigger than this, a file is known by its identity and times instead of its content. */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;
/** A named folder is walked for at most this many entries (the rest is counted, not read). */
const MAX_FOLDER_ENTRIES = 2000;

/** The words of a shell command as the shell would split them (quotes removed), separators dropped. */
export function commandWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  const end = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (/\s|[;&|()<>`]/.test(c)) end();
    else {
      word += c;
      inWord = true;
    }
  }
  end();
  return words;
}

/** The places inside `folder` (absolute, sorted) that these words name. */
export function folderPathsIn(folder: string, words: readonly string[]): string[] {
  const found = new Set<string>();
  for (const raw of words) {
    const word = raw.replace(PROJECT_DIR, folder);
    const candidates = [word];
    const eq = word.indexOf('=');
    if (eq >= 0) candidates.push(word.slice(eq + 1));
    for (const candidate of candidates) {
      if (candidate === '' || candidate.startsWith('-') || candidate.includes('$') || candidate.startsWith('~')) continue;
      const path = isAbsolute(candidate) ? normalize(candidate) : resolve(folder, candidate);
      if (!isPathBelow(folder, path)) continue;
      // A bare word (`echo`, `hello`) is a path only when it is there: the command may read it.
      if (!candidate.includes('/') && !candidate.includes('.') && !existsNoFollow(path)) continue;
      found.add(path);
    }
  }
  return [...found].sort();
}

/** What a project hook runs from the folder. */
export function hookFiles(folder: string, hook: Pick<HookEntry, 'command'>): string[] {
  return folderPathsIn(folder, commandWords(hook.command));
}

/** What an unsandboxed project server runs from the folder (a sandboxed one is contained whatever it runs). */
export function serverFiles(folder: string, entry: CheckedServerEntry): string[] {
  if (entry.type !== 'stdio' || entry.fields.sandbox !== false) return [];
  const words = [entry.command, ...(entry.fields.args ?? []), ...Object.values(entry.fields.env ?? {})];
  return folderPathsIn(folder, words.flatMap((w) => [w, ...commandWords(w)]));
}

/** The entry's digest with the state of the files it runs; the entry's own digest when it runs none. */
export function withFiles(digest: string, folder: string, files: readonly string[]): string {
  if (files.length === 0) return digest;
  const hash = createHash('sha256').update(digest);
  for (const file of files) hash.update(`\n${relative(folder, file)}\0${pathState(file)}`);
  return hash.digest('hex');
}

export function projectHookDigest(folder: string, hook: Pick<HookEntry, 'command' | 'digest'>): string {
  return withFiles(hook.digest, folder, hookFiles(folder, hook));
}

export function projectServerDigest(folder: string, entry: CheckedServerEntry): string {
  return withFiles(entry.digest, folder, serverFiles(folder, entry));
}

/** A cheap stamp of these paths' states (identity and change times): equal stamps, equal states. */
export function pathsStamp(paths: readonly string[]): string {
  return paths
    .map((path) => {
      try {
        const st = lstatSync(path, { bigint: true });
        const target = st.isSymbolicLink() ? statSync(path, { bigint: true, throwIfNoEntry: false }) : st;
        return `${identity(st)}>${target ? identity(target) : 'dangling'}`;
      } catch {
        return 'absent';
      }
    })
    .join('|');
}

// -------------------------------------------------------------------- the state of a path

/** Content hashes by file identity and change time (a ctime cannot be set back). */
const hashCache = new Map<string, string>();

function pathState(path: string): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    try {
      return `dangling:${readlinkSync(path)}`;
    } catch {
      return 'absent';
    }
  }
  return `${real === path ? '' : `link->${real}:`}${contentState(real, { left: MAX_FOLDER_ENTRIES })}`;
}

function contentState(path: string, budget: { left: number }): string {
  let st: BigIntStats;
  try {
    st = statSync(path, { bigint: true });
  } catch {
    return 'absent';
  }
  if (st.isFile()) return `file:${fileHash(path, st)}`;
  if (!st.isDirectory()) return `special:${st.mode}`;
  let names: string[];
  try {
    names = readdirSync(path).sort();
  } catch (err) {
    return `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
  }
  const parts: string[] = [];
  for (const name of names) {
    if (budget.left-- <= 0) return `dir[${parts.join(',')},…${names.length}]`;
    const child = join(path, name);
    let linked = '';
    try {
      if (lstatSync(child).isSymbolicLink()) linked = `link:${readlinkSync(child)}:`;
    } catch {
      // Gone meanwhile: its state says so.
    }
    parts.push(`${name}=${linked}${linked ? 'target' : contentState(child, budget)}`);
  }
  return `dir[${parts.join(',')}]`;
}

function fileHash(path: string, st: BigIntStats): string {
  const key = `${identity(st)}`;
  const cached = hashCache.get(key);
  if (cached !== undefined) return cached;
  if (st.size > BigInt(MAX_HASHED_BYTES)) return `large:${key}`;
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const opened = fstatSync(fd, { bigint: true });
    if (!opened.isFile() || identity(opened) !== key) return `changing:${key}`;
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
    const digest = hash.digest('hex');
    if (hashCache.size > 10_000) hashCache.clear();
    hashCache.set(key, digest);
    return digest;
  } catch (err) {
    return `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function identity(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.mode}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
