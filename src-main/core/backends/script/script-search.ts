// grep and glob at a place (SPEC §3, §13, §18) with the local engines' results: the place
// lists the tree once (descriptor-ops.ts or posix-scripts.ts `tree`, `.git` contents skipped)
// with the .gitignore files it holds, and the walk that applies them runs here with the same
// rules as fs-walk (fs-gitignore, glob-match). grep then has the place search the walked files
// (`grep`: fixed strings, fs-grep-file's rules: lines split at LF, binary = NUL in the first
// 8 KiB) and send only the matched lines.

import type { GlobMatcher } from '../filesystem/glob-match';
import type { GitignoreRules, GitignoreStack } from '../filesystem/fs-gitignore';
import { childStack, compileGitignore, isIgnored } from '../filesystem/fs-gitignore';
import type { FileInfo, GrepMatch } from '../protocol';
import { baseName, joinVirtual, sortByPath } from '../paths';
import { decodeLine } from '../filesystem/fs-grep-file';
import { FieldReader, isoOfFindTime, type Reply } from './script-replies';

export interface TreeEntry {
  /** find's %y: `f` file, `d` folder, `l` link, … */
  type: string;
  size: number;
  mtime: string;
  /** Relative to the searched folder, '/'-separated. */
  rel: string;
}

export interface RemoteTree {
  /** The searched folder's real path on the remote. */
  real: string;
  /** Rules in force for the folder's own entries (from the root down to its parent). */
  inherited: GitignoreStack;
  entries: TreeEntry[];
  /** .gitignore contents by real path. */
  gitignores: Map<string, string>;
}

/** Parses the payload of descriptor-ops.ts or posix-scripts.ts `tree` after its `ok` line. */
export function parseTree(payload: Buffer): RemoteTree {
  const reader = new FieldReader(payload);
  const real = reader.next() ?? '/';
  let inherited: GitignoreStack = [];
  const entries: TreeEntry[] = [];
  for (;;) {
    const tag = reader.next();
    if (tag === null || tag === 'E') break;
    if (tag === 'A') {
      const dir = reader.next() ?? '';
      const git = reader.next() === '1';
      reader.next();
      const content = reader.framed();
      const rules = content === null ? null : compileGitignore(dir, content.toString('utf8'));
      inherited = childStack(inherited, rules, git);
      continue;
    }
    const size = Number(reader.next() ?? '0');
    const mtime = reader.next() ?? '0';
    const rel = reader.next() ?? '';
    entries.push({ type: tag, size, mtime, rel });
  }
  const gitignores = new Map<string, string>();
  while (!reader.done) {
    const path = reader.next();
    const content = reader.framed();
    if (path !== null && content !== null) gitignores.set(path, content.toString('utf8'));
  }
  return { real, inherited, entries, gitignores };
}

interface Folder {
  rel: string;
  children: TreeEntry[];
}

/**
 * The regular files of the tree as fs-walk reports them: `.git` skipped, .gitignore
 * rules applied folder by folder, links not followed, folders entered only when
 * `enterDir` allows.
 */
export function walkTree(tree: RemoteTree, enterDir?: (relDir: string) => boolean): TreeEntry[] {
  const folders = new Map<string, Folder>([['', { rel: '', children: [] }]]);
  for (const entry of tree.entries) {
    const slash = entry.rel.lastIndexOf('/');
    const parent = slash < 0 ? '' : entry.rel.slice(0, slash);
    let folder = folders.get(parent);
    if (!folder) {
      folder = { rel: parent, children: [] };
      folders.set(parent, folder);
    }
    folder.children.push(entry);
    if (entry.type === 'd' && !folders.has(entry.rel)) folders.set(entry.rel, { rel: entry.rel, children: [] });
  }
  const realOf = (rel: string) => (rel === '' ? tree.real : `${tree.real === '/' ? '' : tree.real}/${rel}`);
  const out: TreeEntry[] = [];
  const pending: Array<{ rel: string; inherited: GitignoreStack }> = [{ rel: '', inherited: tree.inherited }];
  while (pending.length > 0) {
    const frame = pending.pop()!;
    const folder = folders.get(frame.rel);
    if (!folder) continue;
    const dirReal = realOf(frame.rel);
    const git = folder.children.some((e) => baseName(e.rel) === '.git');
    const ignoreFile = folder.children.some((e) => baseName(e.rel) === '.gitignore' && e.type !== 'd');
    const content = ignoreFile ? tree.gitignores.get(`${dirReal === '/' ? '' : dirReal}/.gitignore`) : undefined;
    const rules: GitignoreRules | null = content === undefined ? null : compileGitignore(dirReal, content);
    const stack = childStack(frame.inherited, rules, git);
    for (const entry of folder.children) {
      if (baseName(entry.rel) === '.git') continue;
      const real = realOf(entry.rel);
      if (entry.type === 'd') {
        if (isIgnored(stack, real, true)) continue;
        if (enterDir && !enterDir(entry.rel)) continue;
        pending.push({ rel: entry.rel, inherited: stack });
      } else if (entry.type === 'f') {
        if (!isIgnored(stack, real, false)) out.push(entry);
      }
    }
  }
  return out;
}

/** glob's result for the walked files matching `matcher`. */
export function globInfos(tree: RemoteTree, virtual: string, matcher: GlobMatcher): FileInfo[] {
  const files = walkTree(tree, (rel) => matcher.mayMatchBelow(rel)).filter((f) => matcher.matches(f.rel));
  return sortByPath(files.map((f) => ({ path: joinVirtual(virtual, f.rel), size: f.size, modifiedAt: isoOfFindTime(f.mtime) })));
}

/** grep -n's `LINE:text` lines of one file as matches (the text as fs-grep-file decodes it). */
/**
 * The files a grep of `virtual` searches, from its tree reply (`ok`: a folder's tree, `file`:
 * the file's real path): real path → virtual path, each at most `maxFileBytes` and matching the
 * glob (a file given by name matches it by its name).
 */
export function grepTargets(tree: Pick<Reply, 'status' | 'payload'>, virtual: string, filter: GlobMatcher | null, maxFileBytes: number): Map<string, string> {
  const files = new Map<string, string>();
  if (tree.status === 'file') {
    if (!filter || filter.matches(virtual.slice(virtual.lastIndexOf('/') + 1))) files.set(tree.payload.toString('utf8'), virtual);
    return files;
  }
  const parsed = parseTree(tree.payload);
  const prefix = parsed.real === '/' ? '/' : `${parsed.real}/`;
  for (const f of walkTree(parsed, filter ? (rel) => filter.mayMatchBelow(rel) : undefined)) {
    if (f.size > maxFileBytes || (filter && !filter.matches(f.rel))) continue;
    files.set(prefix + f.rel, joinVirtual(virtual, f.rel));
  }
  return files;
}

export function parseGrepLines(output: Buffer): Array<Omit<GrepMatch, 'path'>> {
  const hits: Array<Omit<GrepMatch, 'path'>> = [];
  for (let from = 0; from < output.length; ) {
    let end = output.indexOf(0x0a, from);
    if (end < 0) end = output.length;
    const colon = output.indexOf(0x3a, from);
    if (colon > from && colon < end) hits.push({ line: Number(output.toString('latin1', from, colon)), text: decodeLine(output.subarray(colon + 1, end)) });
    from = end + 1;
  }
  return hits;
}

/** ls's entries of the folder `virtual` from `type\0size\0mtime\0name\0` records (find's %y, %s, %T@), sorted. */
export function listingEntries(payload: Buffer, virtual: string): FileInfo[] {
  const reader = new FieldReader(payload);
  const entries: FileInfo[] = [];
  for (;;) {
    const type = reader.next();
    if (type === null) break;
    const size = Number(reader.next() ?? '0');
    const mtime = reader.next() ?? '0';
    const name = reader.next() ?? '';
    const child = joinVirtual(virtual, name);
    entries.push(type === 'd' ? { path: child + '/', isDir: true } : { path: child, size, modifiedAt: isoOfFindTime(mtime) });
  }
  return sortByPath(entries);
}
