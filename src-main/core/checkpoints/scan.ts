// Seeing what changed in a folder: a stat walk compared with the manifest (only files
// whose size, times, inode or mode moved are read and hashed), or, when the paths are
// known (write_file, edit_file), just those paths and their parent folders.
//
// The walk skips `.git`, honours .gitignore as the search tools do (fs-gitignore) and does
// not enter ignored or dependency folders: for those it keeps a cheap signature (the
// folder's and its children's mtimes), so a change inside shows up as "changed inside
// ignored folder X" without reading it. Symlinks are recorded as links, never followed.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { childStack, compileGitignore, isIgnored, type GitignoreStack } from '../backends/filesystem/fs-gitignore';
import { READ_FLAGS } from '../backends/filesystem/fs-resolve';
import { inParent } from '../fs/no-follow';
import { sameState, type Change, type EntryType, type FileState, type ManifestRow } from './types';
import { HEAVY_FOLDERS } from '../fs/heavy-folders';

/** Files bigger than this are tracked by a stat signature only (not kept, not restorable). */
export const MAX_BLOB_BYTES = 32 * 1024 * 1024;

/** Temp files of atomic writes in flight (fs-atomic-write) are never part of a snapshot. */
export const TEMP_MARK = '.deepdesk-tmp-';

export interface ScanResult {
  changes: Change[];
  /** Content of new or changed files and links, by hash. */
  blobs: Map<string, Buffer>;
  /** Manifest rows to write (`null` removes the path). */
  manifest: Map<string, ManifestRow | null>;
}

export function emptyResult(): ScanResult {
  return { changes: [], blobs: new Map(), manifest: new Map() };
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

const modeBits = (st: fs.Stats): number => st.mode & 0o7777;

function statKeyEqual(row: ManifestRow, st: fs.Stats): boolean {
  return row.size === st.size && row.mtimeMs === st.mtimeMs && row.ctimeMs === st.ctimeMs && row.ino === st.ino && row.mode === modeBits(st);
}

/** A file modified in the same clock tick as its last hash may have changed without its stat moving. */
export function racy(row: ManifestRow, st: Pick<fs.Stats, 'mtimeMs' | 'ctimeMs'>): boolean {
  return st.mtimeMs >= row.hashedAt - 5 || st.ctimeMs >= row.hashedAt - 5;
}

/**
 * The state of one entry from its lstat: hashes (and keeps the content of) files and links
 * unless the manifest row proves them unchanged.
 */
export function observe(abs: string, rel: string, st: fs.Stats, known: ManifestRow | undefined, out: ScanResult, now: number): ManifestRow | null {
  let type: EntryType;
  if (st.isFile()) type = 'f';
  else if (st.isSymbolicLink()) type = 'l';
  else if (st.isDirectory()) type = 'd';
  else return null;
  const base = { path: rel, type, mode: modeBits(st), size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
  if (type === 'd') return { ...base, size: 0, hash: '', hashedAt: now };
  if (known && known.type === type && statKeyEqual(known, st) && !racy(known, st)) return known;
  let content: Buffer;
  try {
    if (type === 'l') content = Buffer.from(fs.readlinkSync(abs, { encoding: 'buffer' }));
    else if (st.size > MAX_BLOB_BYTES) return { ...base, hash: `big:${st.size}:${st.mtimeMs}:${st.ino}`, hashedAt: now };
    else content = readUnfollowed(abs, st);
  } catch {
    return null;
  }
  const hash = sha256(content);
  out.blobs.set(hash, content);
  return { ...base, hash, hashedAt: now };
}

/** The file `st` describes, read without following a link (or opening a FIFO) swapped in since. */
function readUnfollowed(abs: string, st: fs.Stats): Buffer {
  const fd = fs.openSync(abs, READ_FLAGS);
  try {
    const now = fs.fstatSync(fd);
    if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev) throw new Error('changed while reading');
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The signature of an ignored entry: its own and (for a folder) its children's sizes and mtimes, one level deep. */
function ignoredSignature(abs: string, st: fs.Stats): string {
  if (!st.isDirectory()) return `${st.size}:${st.mtimeMs}`;
  let count = 0;
  let newest = st.mtimeMs;
  let total = 0;
  try {
    for (const name of fs.readdirSync(abs)) {
      count++;
      try {
        const c = fs.lstatSync(path.join(abs, name));
        if (c.mtimeMs > newest) newest = c.mtimeMs;
        total += c.size;
      } catch {
        // Gone meanwhile: counted, nothing more.
      }
    }
  } catch {
    return `${st.mtimeMs}`;
  }
  return `${st.mtimeMs}:${count}:${newest}:${total}`;
}

/** Whether an ignored entry's signature (above, or remote-folder.ts's) is a folder's: a file's is `size:mtime`. */
export const signsFolder = (signature: string): boolean => signature.split(':').length !== 2;

function ignoredRow(rel: string, abs: string, st: fs.Stats, now: number): ManifestRow {
  return { path: rel, type: 'i', mode: 0, hash: ignoredSignature(abs, st), size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, hashedAt: now };
}

export function stateOf(row: ManifestRow | null | undefined): FileState | null {
  return row ? { type: row.type, mode: row.mode, hash: row.hash } : null;
}

function readGitignoreSync(dir: string): ReturnType<typeof compileGitignore> {
  try {
    return compileGitignore(dir, fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'));
  } catch {
    return null;
  }
}

/** How long a slice of a walk may hold the event loop before it lets others run. */
const SLICE_MS = 8;

/** Lets timers and I/O run (setImmediate: after the poll phase, so pending I/O is served first). */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Walks the whole folder and compares it with `manifest`. With `record` false (a first
 * baseline) nothing counts as a change; the manifest and blobs are still filled. Runs in
 * slices of a few milliseconds, so that a walk of a big folder never holds the event loop:
 * the window (and every other request) is answered between slices. `onSlice` runs between
 * slices with what was gathered so far (e.g. to store blobs and free memory).
 */
export async function scanFolderSliced(
  root: string,
  manifest: ReadonlyMap<string, ManifestRow>,
  record: boolean,
  options: { signal?: AbortSignal; onSlice?: (partial: ScanResult) => Promise<void> | void } = {},
): Promise<ScanResult> {
  const work = scanFolderWork(root, manifest, record);
  let sliceStart = performance.now();
  for (let step = work.next(); ; step = work.next()) {
    if (step.done) return step.value;
    if (performance.now() - sliceStart < SLICE_MS) continue;
    await options.onSlice?.(step.value);
    await yieldToLoop();
    options.signal?.throwIfAborted();
    sliceStart = performance.now();
  }
}

/** The walk of scanFolderSliced, yielding (what it gathered so far) after each folder and every few files. */
function* scanFolderWork(root: string, manifest: ReadonlyMap<string, ManifestRow>, record: boolean): Generator<ScanResult, ScanResult> {
  const out = emptyResult();
  const now = Date.now();
  const seen = new Set<string>();
  const note = (rel: string, row: ManifestRow | null): void => {
    if (row === null) return;
    // Only to find the recorded paths that are gone (none to find in a first snapshot).
    if (manifest.size > 0) seen.add(rel);
    const known = manifest.get(rel);
    if (known === row) return;
    out.manifest.set(rel, row);
    const before = stateOf(known);
    const after = stateOf(row);
    // A path that became ignored (or stopped being ignored) did not change by that.
    if (before !== null && (before.type === 'i') !== (row.type === 'i')) return;
    if (record && !sameState(before, after)) out.changes.push({ path: rel, before, after });
  };
  const pending: Array<{ abs: string; rel: string; stack: GitignoreStack }> = [{ abs: root, rel: '', stack: [] }];
  let sinceYield = 0;
  while (pending.length > 0) {
    yield out;
    const frame = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(frame.abs, { withFileTypes: true });
    } catch {
      continue;
    }
    let hasGit = false;
    let hasIgnoreFile = false;
    for (const e of entries) {
      if (e.name === '.git') hasGit = true;
      else if (e.name === '.gitignore' && !e.isDirectory()) hasIgnoreFile = true;
    }
    const stack = childStack(frame.stack, hasIgnoreFile ? readGitignoreSync(frame.abs) : null, hasGit);
    for (const e of entries) {
      const name = e.name;
      // `.deepdesk/` at the root is Deepdesk's own (the sandbox keeps it read-only), not the project's.
      if (name === '.git' || name.includes(TEMP_MARK) || (frame.rel === '' && name === '.deepdesk')) continue;
      const abs = frame.abs === root && root.endsWith(path.sep) ? frame.abs + name : frame.abs + path.sep + name;
      const rel = frame.rel === '' ? name : `${frame.rel}/${name}`;
      const isDir = e.isDirectory();
      if ((isDir && HEAVY_FOLDERS.has(name)) || isIgnored(stack, abs, isDir)) {
        try {
          note(rel, ignoredRow(rel, abs, fs.lstatSync(abs), now));
        } catch {
          // Vanished between readdir and lstat.
        }
        continue;
      }
      if (isDir) {
        const known = manifest.get(rel);
        if (known && known.type === 'd') note(rel, known);
        else {
          try {
            note(rel, observe(abs, rel, fs.lstatSync(abs), known, out, now));
          } catch {
            continue;
          }
        }
        pending.push({ abs, rel, stack });
        continue;
      }
      if (!e.isFile() && !e.isSymbolicLink()) continue;
      let st: fs.Stats;
      try {
        st = fs.lstatSync(abs);
      } catch {
        continue;
      }
      note(rel, observe(abs, rel, st, manifest.get(rel), out, now));
      if (++sinceYield % 16 === 0) yield out;
    }
  }
  for (const [rel, row] of manifest) {
    if (seen.has(rel)) continue;
    out.manifest.set(rel, null);
    // Still there but no longer walked (a folder became ignored): forget it, it did not change.
    // Below a folder that became a link it is gone: what the link points to is not the folder's.
    if (existsAt(root, rel)) continue;
    if (record) out.changes.push({ path: rel, before: stateOf(row), after: null });
  }
  out.changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/** The paths a known-path step may touch: each of them and their parent folders below the root. */
export function withParents(rels: readonly string[]): string[] {
  const all = new Set<string>();
  for (const rel of rels) {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i++) all.add(parts.slice(0, i).join('/'));
  }
  return [...all].sort();
}

/**
 * Observes the entry at `rel` without following a link in any parent folder: a path below a
 * link is not in the folder (as the walk sees it), so the answer is null. What was read is
 * added to `out` only once the read is known not to have gone through a link.
 */
function observeAt(root: string, rel: string, known: ManifestRow | undefined, out: ScanResult, now: number, orSignature = false): ManifestRow | null {
  const mine = emptyResult();
  let row: ManifestRow | null;
  try {
    row = inParent(root, rel, {}, (at) => {
      let st: fs.Stats;
      try {
        st = fs.lstatSync(at);
      } catch {
        return null;
      }
      return observe(at, rel, st, known, mine, now) ?? (orSignature ? ignoredRow(rel, at, st, now) : null);
    });
  } catch {
    // A parent is a link (or became one), is missing or is not a folder.
    return null;
  }
  for (const [hash, data] of mine.blobs) out.blobs.set(hash, data);
  return row;
}

/** Whether an entry exists at `rel`, not counting one behind a link in a parent folder. */
function existsAt(root: string, rel: string): boolean {
  try {
    return inParent(root, rel, {}, (at) => {
      fs.lstatSync(at);
      return true;
    });
  } catch {
    return false;
  }
}

/**
 * The current state of just these paths (and what to write to the manifest for them).
 * Never reads through a link in a parent folder: such a path counts as absent.
 */
export function scanPaths(root: string, rels: readonly string[], manifest: (rel: string) => ManifestRow | undefined): { states: Map<string, ManifestRow | null>; result: ScanResult } {
  const out = emptyResult();
  const now = Date.now();
  const states = new Map<string, ManifestRow | null>();
  for (const rel of rels) states.set(rel, observeAt(root, rel, manifest(rel), out, now));
  return { states, result: out };
}

/** The changes between two scans of the same paths. */
export function diffStates(before: ReadonlyMap<string, ManifestRow | null>, after: ReadonlyMap<string, ManifestRow | null>): Change[] {
  const changes: Change[] = [];
  for (const [rel, a] of after) {
    const b = stateOf(before.get(rel));
    const s = stateOf(a);
    if (!sameState(b, s)) changes.push({ path: rel, before: b, after: s });
  }
  return changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/**
 * The state of one path on disk now (hashing it), for conflict checks and restores. A path
 * below a link in a parent folder is absent: what the link points to is not the path's.
 */
export function currentState(root: string, rel: string): { state: FileState | null; row: ManifestRow | null; blobs: Map<string, Buffer> } {
  const out = emptyResult();
  const now = Date.now();
  const row = observeAt(root, rel, undefined, out, now, true);
  return { state: stateOf(row), row, blobs: out.blobs };
}

/**
 * Where the walk would record each of `rels`: the path itself, the ignored entry that holds
 * it (a folder the walk does not enter, or an ignored file: kept as a signature), or nowhere
 * (inside `.git`, an atomic write's temp file, Deepdesk's own `.deepdesk/`). `wasFolder`
 * tells whether a path that no longer exists was a folder (the manifest knows).
 */
export function walkTargets(root: string, rels: Iterable<string>, wasFolder: (rel: string) => boolean): Map<string, { rel: string; ignored: boolean }> {
  const stacks = new Map<string, GitignoreStack>();
  const entriesOf = (dirRel: string): GitignoreStack => {
    const cached = stacks.get(dirRel);
    if (cached) return cached;
    const parent = dirRel === '' ? [] : entriesOf(dirRel.includes('/') ? dirRel.slice(0, dirRel.lastIndexOf('/')) : '');
    const abs = dirRel === '' ? root : path.join(root, dirRel);
    let rules: ReturnType<typeof compileGitignore> = null;
    let hasGit = false;
    try {
      if (!fs.lstatSync(path.join(abs, '.gitignore')).isDirectory()) rules = readGitignoreSync(abs);
    } catch {
      // No .gitignore here.
    }
    try {
      fs.lstatSync(path.join(abs, '.git'));
      hasGit = true;
    } catch {
      // Not a repository's top.
    }
    const stack = childStack(parent, rules, hasGit);
    stacks.set(dirRel, stack);
    return stack;
  };
  const out = new Map<string, { rel: string; ignored: boolean }>();
  for (const rel of rels) {
    const parts = rel.split('/');
    let target: { rel: string; ignored: boolean } | null = { rel, ignored: false };
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      const here = parts.slice(0, i + 1).join('/');
      if (name === '.git' || name.includes(TEMP_MARK) || (i === 0 && name === '.deepdesk')) {
        target = null;
        break;
      }
      let isDir: boolean;
      if (i < parts.length - 1) isDir = true;
      else {
        try {
          isDir = fs.lstatSync(path.join(root, here)).isDirectory();
        } catch {
          isDir = wasFolder(here);
        }
      }
      const parentRel = parts.slice(0, i).join('/');
      if ((isDir && HEAVY_FOLDERS.has(name)) || isIgnored(entriesOf(parentRel), path.join(root, here), isDir)) {
        target = { rel: here, ignored: true };
        break;
      }
    }
    if (target) out.set(rel, target);
  }
  return out;
}

/**
 * The current state of paths as the walk records them (targets from `walkTargets`): an
 * ignored one as its signature, the others observed without following a link in a parent.
 */
export function scanTargets(root: string, targets: ReadonlyMap<string, boolean>, manifest: (rel: string) => ManifestRow | undefined): { states: Map<string, ManifestRow | null>; result: ScanResult } {
  const out = emptyResult();
  const now = Date.now();
  const states = new Map<string, ManifestRow | null>();
  for (const [rel, ignored] of targets) {
    if (!ignored) {
      states.set(rel, observeAt(root, rel, manifest(rel), out, now));
      continue;
    }
    let row: ManifestRow | null;
    try {
      row = inParent(root, rel, {}, (at) => {
        try {
          return ignoredRow(rel, at, fs.lstatSync(at), now);
        } catch {
          return null;
        }
      });
    } catch {
      row = null;
    }
    states.set(rel, row);
  }
  return { states, result: out };
}

/** Every entry below folder `rel` (never through a link, not into dependency folders): what removing it removes. */
export function entriesUnder(root: string, rel: string): string[] {
  const found: string[] = [];
  const visit = (dirRel: string): void => {
    let names: fs.Dirent[];
    try {
      names = inParent(root, dirRel, {}, (at) => {
        if (!fs.lstatSync(at).isDirectory()) return [];
        return fs.readdirSync(at, { withFileTypes: true });
      });
    } catch {
      return;
    }
    for (const d of names) {
      const child = `${dirRel}/${d.name}`;
      found.push(child);
      if (d.isDirectory() && !HEAVY_FOLDERS.has(d.name) && d.name !== '.git') visit(child);
    }
  };
  visit(rel);
  return found;
}
