// Snapshots of a remote folder (SPEC §13): scan.ts's walk done in a few ssh calls. One call
// lists the tree (type, mode, size, times, inode, link target of every entry; `.git` and
// dependency folders not entered, as the local walk skips them) with every .gitignore's
// content; the walk's rules (ignored entries, signatures, what counts as changed) are then
// applied here to that listing; a second call fetches the content of just the files whose
// stat moved. Checkpoints stay in the local data folder (CheckpointStore, unchanged), keyed
// by the folder's ssh:// URL.
//
// Reads never go through a link in a parent folder: the listing comes from `find -P` (which
// never follows one) and the content fetch checks every parent of a path again right before
// reading it (a link swapped in since the listing makes the path unreadable, so nothing
// behind it is kept). Like no-follow.ts's 'lstat' mode that is a check, not an openat walk.
//
// Known limit: gitignored folders are listed in full (the ignore rules are applied here,
// after the listing), though never read; dependency folders (HEAVY_FOLDERS) are pruned.

import path from 'node:path';
import { FieldReader, PRELUDE, REPLY_MARK, afterMark } from '../backends/script/script-replies';
import { type SshConnection } from '../backends/remote/ssh-connection';
import { byteGroups } from '../text/byte-groups';
import { shQuote } from '../text/shell-quote';
import { formatSshTarget } from '../backends/remote/ssh-target';
import { childStack, compileGitignore, isIgnored, type GitignoreStack } from '../backends/filesystem/fs-gitignore';
import type { CurrentState, FolderSource, PathStates } from './folder-source';
import type { RestoreOp, RestoreOpResult } from './restore-ops';
import { emptyResult, MAX_BLOB_BYTES, racy, sha256, stateOf, TEMP_MARK, withParents, type ScanResult } from './scan';
import { HEAVY_FOLDERS } from '../fs/heavy-folders';
import { sameState, type EntryType, type ManifestRow, type StatKey } from './types';

/** One entry as `find -printf` reports it. */
interface RemoteEntry extends StatKey {
  kind: string;
  mode: number;
  /** A link's target. */
  link: string;
  rel: string;
}

/** `%y mode size mtime ctime inode link-target ./relpath`, each NUL-terminated. */
const RECORD = String.raw`%y\0%m\0%s\0%T@\0%C@\0%i\0%l\0%p\0`;
const FIELDS_PER_RECORD = 8;

const heavyNames = (): string => [...HEAVY_FOLDERS].map((name) => `-name ${shQuote(name)}`).join(' -o ');

/** Parent folders of `$1` (a `./`-relative path) that are links: none, or the script's reply says so. */
const NO_LINK_ABOVE = String.raw`
nolink() { _p=${'$'}{1#./}; _d=.; while :; do case $_p in */*) _d=$_d/${'$'}{_p%%/*}; _p=${'$'}{_p#*/}; [ -L "$_d" ] && return 1;; *) return 0;; esac; done; }
`;

/** `ok <remote time>` then every entry's RECORD, `E`, then each .gitignore as FRAMED. */
function walkScript(): string {
  const heavy = heavyNames();
  return String.raw`
cd -- "$ROOT" 2>/dev/null || { echo noroot; exit 0; }
echo "ok $(date +%s.%N)"
find . -mindepth 1 \( -name .git -o -path ./.deepdesk -o -path '*${TEMP_MARK}*' \) -printf '${RECORD}' -prune -o \( -type d \( ${heavy} \) \) -printf '${RECORD}' -prune -exec find {} -mindepth 1 -maxdepth 1 -printf '${RECORD}' \; -o -printf '${RECORD}'
printf 'E\0'
find . \( -name .git -o \( -type d \( ${heavy} \) \) \) -prune -o -name .gitignore ! -type d -exec sh -c "$FRAMED" sh {} +
`;
}

/**
 * The `./`-relative paths on stdin (NUL-separated) that are plain files reached without a
 * link, as one tar stream (one process for all of them; a file that shrinks meanwhile is
 * padded, so the stream stays whole); a path left out could not be read.
 */
const FETCH = String.raw`
cd -- "$ROOT" 2>/dev/null || { echo noroot; exit 0; }
echo ok
xargs -0 sh -c '
${NO_LINK_ABOVE}
for f do nolink "$f" && [ -f "$f" ] && [ ! -L "$f" ] && printf "%s\0" "$f"; done' sh | tar -c -f - --format=gnu --no-recursion --null -T - 2>/dev/null
`;

/** `ok <remote time>` then, for each `./`-relative path given, its RECORD or `-` (missing, or below a link). */
const STAT_PATHS = String.raw`
cd -- "$ROOT" 2>/dev/null || { echo noroot; exit 0; }
echo "ok $(date +%s.%N)"
${NO_LINK_ABOVE}
for f do
  if nolink "$f" && { [ -e "$f" ] || [ -L "$f" ]; }; then find "$f" -maxdepth 0 -printf '${RECORD}' 2>/dev/null || printf -- '-\0'; else printf -- '-\0'; fi
done
`;

/** `ok yes` when one of the `./`-relative paths given is a link. */
const ANY_LINK = String.raw`
cd -- "$ROOT" 2>/dev/null || { echo noroot; exit 0; }
for f do [ -L "$f" ] && { echo 'ok yes'; exit 0; }; done
echo 'ok no'
`;

/** For each `./`-relative path given: the first parent folder that is a link (`./`-relative), or `-`. */
const LINKED_PARENTS = String.raw`
cd -- "$ROOT" 2>/dev/null || { echo noroot; exit 0; }
echo ok
for f do
  _p=${'$'}{f#./}; _d=.; _l=-
  while :; do
    case $_p in */*) _d=$_d/${'$'}{_p%%/*}; _p=${'$'}{_p#*/};; *) break;; esac
    if [ -L "$_d" ]; then _l=$_d; break; fi
    [ -d "$_d" ] || break
  done
  printf '%s\0' "$_l"
done
`;

/**
 * A restore's operations (restore-ops.ts), five arguments each: `u|r|m|f|l ./rel mode flag
 * size-or-target`; the files' bytes follow one another on stdin. One result per operation
 * (RestoreOpResult), NUL-terminated. Every operation checks its parents for links before and
 * after (a link swapped in meanwhile is reported as one); creating missing parents never
 * goes through a link; a file is written to a temp name beside it and renamed over it.
 */
const APPLY_RESTORE = String.raw`
cd -- "$ROOT" 2>/dev/null || { echo noroot; exit 0; }
echo ok
${NO_LINK_ABOVE}
mkparents() { _p=${'$'}{1#./}; _d=.; while :; do case $_p in */*) _d=$_d/${'$'}{_p%%/*}; _p=${'$'}{_p#*/}
  if [ -L "$_d" ]; then return 1; elif [ ! -e "$_d" ]; then mkdir -- "$_d" 2>/dev/null || [ -d "$_d" ] || return 2; elif [ ! -d "$_d" ]; then return 2; fi;;
  *) return 0;; esac; done; }
readn() { [ "$1" -gt 0 ] && dd bs="$1" count=1 iflag=fullblock 2>/dev/null; return 0; }
say() { printf '%s\0' "$1"; }
after() { if nolink "$1"; then say ok; else say link; fi; }
n=0
while [ $# -ge 5 ]; do
  k=$1; f=$2; m=$3; x=$4; e=$5; shift 5; n=$((n + 1))
  case $k in
  u) if ! nolink "$f"; then say link
     elif [ ! -e "$f" ] && [ ! -L "$f" ]; then say ENOENT
     elif [ -d "$f" ] && [ ! -L "$f" ]; then say 'is a folder'
     elif rm -f -- "$f" 2>/dev/null; then after "$f"
     else say 'permission denied'; fi;;
  r) if ! nolink "$f"; then say link
     elif [ ! -e "$f" ] && [ ! -L "$f" ]; then say ENOENT
     elif [ -L "$f" ] || [ ! -d "$f" ]; then say 'not a folder'
     elif rmdir -- "$f" 2>/dev/null; then after "$f"
     elif [ -n "$(ls -A -- "$f" 2>/dev/null)" ]; then say ENOTEMPTY
     else say 'permission denied'; fi;;
  m) mkparents "$f"; c=$?
     if [ $c = 1 ]; then say link; elif [ $c = 2 ]; then say 'a parent is not a folder'
     else
       if [ "$x" = 1 ] && { [ -L "$f" ] || { [ -e "$f" ] && [ ! -d "$f" ]; }; }; then rm -f -- "$f"; fi
       if { [ -d "$f" ] && [ ! -L "$f" ]; } || mkdir -- "$f" 2>/dev/null; then chmod -- "$m" "$f" 2>/dev/null; after "$f"
       else say 'could not make the folder'; fi
     fi;;
  f|l) size=0; [ "$k" = f ] && size=$e
     mkparents "$f"; c=$?
     t=${'$'}{f%/*}/.$(printf '%.100s' "${'$'}{f##*/}")${TEMP_MARK}$$-$n
     if [ $c = 1 ]; then readn "$size" >/dev/null; say link
     elif [ $c = 2 ]; then readn "$size" >/dev/null; say 'a parent is not a folder'
     elif ! ( set -C; : > "$t" ) 2>/dev/null; then readn "$size" >/dev/null; say 'permission denied'
     else
       if [ "$k" = f ]; then readn "$size" >> "$t"; chmod -- "$m" "$t" 2>/dev/null; ok=$([ "$(wc -c < "$t")" -eq "$size" ] && echo y)
       else rm -f -- "$t"; ln -s -- "$e" "$t" 2>/dev/null && ok=y || ok=; fi
       [ "$x" = 1 ] && [ -d "$f" ] && [ ! -L "$f" ] && rmdir -- "$f" 2>/dev/null
       if [ "$ok" = y ] && mv -f -T -- "$t" "$f" 2>/dev/null; then after "$f"
       else rm -f -- "$t"; if [ -d "$f" ] && [ ! -L "$f" ]; then say 'a folder is in the way'; else say 'could not write it'; fi; fi
     fi;;
  *) say 'unknown operation';;
  esac
done
`;

export class RemoteFolderError extends Error {}

/**
 * Arguments given to one script at most (bytes): the script is one argument of the remote
 * `sh -c`, and Linux caps a single argument at 128 KiB (MAX_ARG_STRLEN).
 */
const ARG_BYTES = 64 * 1024;

/** File content fetched in one call at most (bytes, by the listing's sizes). */
const FETCH_BYTES = 16 * 1024 * 1024;

/** A path's bytes on a command line (quoted, with a separator), and a margin. */
const relBytes = (rel: string): number => Buffer.byteLength(rel) + 2 + 8;

/** The snapshots of the remote folder `connection` is for (its target's path). */
export function remoteFolderSource(connection: SshConnection): FolderSource {
  return new RemoteFolderSource(connection);
}

class RemoteFolderSource implements FolderSource {
  readonly root: string;
  readonly local = false;
  private readonly connection: SshConnection;

  constructor(connection: SshConnection) {
    this.connection = connection;
    this.root = formatSshTarget(connection.target);
  }

  /** Runs a script (with PRELUDE: ROOT, FRAMED) and gives its reply's first line and the rest. */
  private async run(body: string, args: readonly string[] = [], input?: Buffer): Promise<{ line: string; payload: Buffer }> {
    const script = `set -- ${[this.connection.target.path, ...args].map(shQuote).join(' ')}\nprintf '%s' ${shQuote(REPLY_MARK)}\n${PRELUDE}\n${body}`;
    const result = await this.connection.run(script, { input: input ?? '' });
    const out = afterMark(result.stdout);
    const nl = out.indexOf(0x0a);
    const line = (nl < 0 ? out : out.subarray(0, nl)).toString('utf8');
    if (line === 'noroot') throw new RemoteFolderError(`the folder is not there (${this.connection.label})`);
    if (!line.startsWith('ok')) throw new RemoteFolderError(`could not read the folder (${this.connection.label}): ${result.stderr.trim().split('\n').pop() ?? ''}`);
    return { line, payload: nl < 0 ? Buffer.alloc(0) : out.subarray(nl + 1) };
  }

  async walk(manifest: ReadonlyMap<string, ManifestRow>, record: boolean, options: { signal?: AbortSignal; onSlice?: (partial: ScanResult) => Promise<void> | void } = {}): Promise<ScanResult> {
    const { line, payload } = await this.run(walkScript());
    const now = remoteTime(line);
    const reader = new FieldReader(payload);
    const entries = new Map<string, RemoteEntry>();
    for (let e = readEntry(reader); e !== null; e = readEntry(reader)) entries.set(e.rel, e);
    const gitignores = new Map<string, string>();
    while (!reader.done) {
      const file = reader.next();
      const content = reader.framed();
      if (file === null) break;
      if (content !== null) gitignores.set(file.replace(/^\.\//, ''), content.toString('utf8'));
    }
    const out = emptyResult();
    const seen = new Set<string>();
    const wanted = new Map<string, ManifestRow>();
    const note = (rel: string, row: ManifestRow | null): void => {
      if (row === null) return;
      seen.add(rel);
      if (manifest.get(rel) !== row) out.manifest.set(rel, row);
    };
    const children = childrenOf(entries);
    // Any absolute base works for the ignore rules: they only compare paths below it.
    const base = '/folder';
    const visit = (dirRel: string, parentStack: GitignoreStack): void => {
      const names = children.get(dirRel) ?? [];
      const abs = dirRel === '' ? base : `${base}/${dirRel}`;
      const ignoreFile = dirRel === '' ? '.gitignore' : `${dirRel}/.gitignore`;
      const rules = gitignores.has(ignoreFile) ? compileGitignore(abs, gitignores.get(ignoreFile)!) : null;
      const stack = childStack(parentStack, rules, names.includes('.git'));
      for (const name of names) {
        if (name === '.git' || name.includes(TEMP_MARK) || (dirRel === '' && name === '.deepdesk')) continue;
        const rel = dirRel === '' ? name : `${dirRel}/${name}`;
        const e = entries.get(rel)!;
        const isDir = e.kind === 'd';
        if ((isDir && HEAVY_FOLDERS.has(name)) || isIgnored(stack, `${abs}/${name}`, isDir)) {
          note(rel, { path: rel, type: 'i', mode: 0, hash: signature(e, children.get(rel) ?? [], entries), size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, hashedAt: now });
          continue;
        }
        const type = entryType(e.kind);
        if (type === null) continue;
        const known = manifest.get(rel);
        if (type === 'd') {
          note(rel, known?.type === 'd' ? known : { ...statOf(e, 'd'), size: 0, hash: '', hashedAt: now });
          visit(rel, stack);
          continue;
        }
        const row = observeListed(e, type, known, now, out);
        if (row === 'fetch') wanted.set(rel, { ...statOf(e, type), hash: '', hashedAt: now });
        else note(rel, row);
      }
    };
    visit('', []);
    // Content comes in runs of FETCH_BYTES, stored (onSlice) before the next: a first snapshot of a big folder is never all in memory.
    for (const run of byteGroups([...wanted], FETCH_BYTES, ([, row]) => row.size + 8)) {
      for (const [rel, row] of await this.fetchRows(new Map(run), out)) note(rel, row);
      await options.onSlice?.(out);
      options.signal?.throwIfAborted();
    }
    for (const [rel, row] of out.manifest) {
      if (row === null || !record) continue;
      const before = stateOf(manifest.get(rel));
      // A path that became ignored (or stopped being ignored) did not change by that.
      if (before !== null && (before.type === 'i') !== (row.type === 'i')) continue;
      if (!sameState(before, stateOf(row))) out.changes.push({ path: rel, before, after: stateOf(row) });
    }
    for (const [rel, row] of manifest) {
      if (seen.has(rel)) continue;
      out.manifest.set(rel, null);
      // Still there but no longer walked (a folder became ignored): forgotten, not changed.
      if (entries.has(rel) || !record) continue;
      out.changes.push({ path: rel, before: stateOf(row), after: null });
    }
    out.changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out;
  }

  /** `orSignature`: an entry that is neither file, link nor folder (a FIFO) is given by its signature, not as absent. */
  async scanPaths(rels: readonly string[], manifest: (rel: string) => ManifestRow | undefined, orSignature = false): Promise<PathStates> {
    const out = emptyResult();
    const states = new Map<string, ManifestRow | null>();
    if (rels.length === 0) return { states, result: out };
    const wanted = new Map<string, ManifestRow>();
    for (const batch of byteGroups(rels, ARG_BYTES, relBytes)) {
    const { line, payload } = await this.run(STAT_PATHS, batch.map((rel) => `./${rel}`));
    const now = remoteTime(line);
    const reader = new FieldReader(payload);
    for (const rel of batch) {
      const e = readEntry(reader, true);
      const type = e === null ? null : entryType(e.kind);
      if (e === null || type === null) {
        states.set(rel, e !== null && orSignature ? { path: rel, type: 'i', mode: 0, hash: signature(e, [], new Map()), size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, hashedAt: now } : null);
        continue;
      }
      if (type === 'd') {
        states.set(rel, { ...statOf(e, 'd', rel), size: 0, hash: '', hashedAt: now });
        continue;
      }
      const row = observeListed({ ...e, rel }, type, manifest(rel), now, out);
      if (row === 'fetch') wanted.set(rel, { ...statOf(e, type, rel), hash: '', hashedAt: now });
      else states.set(rel, row);
    }
    }
    for (const [rel, row] of await this.fetchRows(wanted, out)) states.set(rel, row);
    return { states, result: out };
  }

  async linkedParents(rels: readonly string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    if (rels.length === 0) return out;
    for (const batch of byteGroups(rels, ARG_BYTES, relBytes)) {
      const { payload } = await this.run(LINKED_PARENTS, batch.map((rel) => `./${rel}`));
      const reader = new FieldReader(payload);
      for (const rel of batch) {
        const link = reader.next();
        if (link === null) throw new RemoteFolderError(`could not check the folder's links (${this.connection.label})`);
        out.set(rel, link === '-' ? null : link.replace(/^\.\//, ''));
      }
    }
    return out;
  }

  async currentStates(rels: readonly string[]): Promise<Map<string, CurrentState>> {
    const { states, result } = await this.scanPaths(rels, () => undefined, true);
    return new Map([...states].map(([rel, row]) => [rel, { state: stateOf(row), blobs: row && row.type !== 'd' && row.type !== 'i' ? new Map(result.blobs.has(row.hash) ? [[row.hash, result.blobs.get(row.hash)!]] : []) : new Map() }]));
  }

  async applyRestore(ops: readonly RestoreOp[]): Promise<RestoreOpResult[]> {
    const results: RestoreOpResult[] = [];
    const bytesOf = (op: RestoreOp): number => relBytes(op.rel) + (op.op === 'put' && op.type === 'l' ? op.content.length : 0) + 16;
    for (const batch of byteGroups(ops, ARG_BYTES, bytesOf)) results.push(...(await this.applyBatch(batch)));
    return results;
  }

  /** One script for `ops` (their arguments fit one call). */
  private async applyBatch(ops: readonly RestoreOp[]): Promise<RestoreOpResult[]> {
    const args: string[] = [];
    const contents: Buffer[] = [];
    for (const op of ops) {
      const rel = `./${op.rel}`;
      if (op.op === 'unlink') args.push('u', rel, '0', '0', '-');
      else if (op.op === 'rmdir') args.push('r', rel, '0', '0', '-');
      else if (op.op === 'mkdir') args.push('m', rel, op.mode.toString(8), op.replace ? '1' : '0', '-');
      else if (op.type === 'l') args.push('l', rel, '0', op.replaceFolder ? '1' : '0', op.content.toString('utf8'));
      else {
        args.push('f', rel, op.mode.toString(8), op.replaceFolder ? '1' : '0', String(op.content.length));
        contents.push(op.content);
      }
    }
    if (ops.length === 0) return [];
    const { payload } = await this.run(APPLY_RESTORE, args, Buffer.concat(contents));
    const reader = new FieldReader(payload);
    return ops.map(() => reader.next() ?? `not done (${this.connection.label})`);
  }

  async throughLinks(rels: readonly string[]): Promise<boolean> {
    for (const batch of byteGroups(withParents(rels), ARG_BYTES, relBytes)) {
      const { line } = await this.run(ANY_LINK, batch.map((rel) => `./${rel}`));
      if (line === 'ok yes') return true;
    }
    return false;
  }

  /** Fetches the files of `wanted` in one call and gives their rows (hashed); an unreadable one is absent. */
  private async fetchRows(wanted: ReadonlyMap<string, ManifestRow>, out: ScanResult): Promise<Map<string, ManifestRow | null>> {
    const rows = new Map<string, ManifestRow | null>();
    if (wanted.size === 0) return rows;
    const rels = [...wanted.keys()];
    const input = Buffer.concat(rels.map((rel) => Buffer.from(`./${rel}\0`)));
    const { payload } = await this.run(FETCH, [], input);
    const files = untar(payload);
    for (const rel of rels) {
      const content = files.get(rel);
      if (content === undefined) {
        rows.set(rel, null);
        continue;
      }
      const hash = sha256(content);
      out.blobs.set(hash, Buffer.from(content));
      rows.set(rel, { ...wanted.get(rel)!, hash });
    }
    return rows;
  }
}

/**
 * The row of a listed file or link as scan.ts's `observe` gives it: the known row when its stat
 * did not move, a link hashed from its target, a big file by signature; else 'fetch' (read it).
 */
function observeListed(e: RemoteEntry, type: 'f' | 'l', known: ManifestRow | undefined, now: number, out: ScanResult): ManifestRow | 'fetch' {
  const stat = statOf(e, type);
  if (known && known.type === type && known.size === e.size && known.mtimeMs === e.mtimeMs && known.ctimeMs === e.ctimeMs && known.ino === e.ino && known.mode === e.mode && !racy(known, e)) return known;
  if (type === 'l') {
    const target = Buffer.from(e.link);
    const hash = sha256(target);
    out.blobs.set(hash, target);
    return { ...stat, hash, hashedAt: now };
  }
  if (e.size > MAX_BLOB_BYTES) return { ...stat, hash: `big:${e.size}:${e.mtimeMs}:${e.ino}`, hashedAt: now };
  return 'fetch';
}

function statOf(e: RemoteEntry, type: EntryType, rel = e.rel): Omit<ManifestRow, 'hash' | 'hashedAt'> {
  return { path: rel, type, mode: e.mode, size: e.size, mtimeMs: e.mtimeMs, ctimeMs: e.ctimeMs, ino: e.ino };
}

function entryType(kind: string): 'f' | 'l' | 'd' | null {
  return kind === 'f' ? 'f' : kind === 'l' ? 'l' : kind === 'd' ? 'd' : null;
}

/** The next RECORD, or null at `E` / the end (or `-` when `dash` allows it: a missing path). */
function readEntry(reader: FieldReader, dash = false): RemoteEntry | null {
  const kind = reader.next();
  if (kind === null || kind === 'E' || (dash && kind === '-')) return null;
  const f: string[] = [kind];
  for (let i = 1; i < FIELDS_PER_RECORD; i++) f.push(reader.next() ?? '');
  return { kind, mode: parseInt(f[1]!, 8) & 0o7777, size: Number(f[2]), mtimeMs: secondsToMs(f[3]!), ctimeMs: secondsToMs(f[4]!), ino: Number(f[5]), link: f[6]!, rel: f[7]!.replace(/^\.\//, '') };
}

/** `find`'s `%T@` (seconds with a fraction) in ms, exact to the ns digits it gives. */
function secondsToMs(text: string): number {
  const [seconds = '0', fraction = ''] = text.split('.');
  return Number(seconds) * 1e3 + Number(fraction.padEnd(9, '0').slice(0, 9)) / 1e6;
}

/** The remote's clock from `ok <seconds.fraction>`: racy-file checks compare remote times with it. */
function remoteTime(line: string): number {
  const text = line.split(' ')[1];
  return text && /^\d+(\.\d+)?$/.test(text) ? secondsToMs(text) : Date.now();
}

/** Entries by parent folder ('' for the root), from the listing. */
function childrenOf(entries: ReadonlyMap<string, RemoteEntry>): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const rel of entries.keys()) {
    const cut = rel.lastIndexOf('/');
    const parent = cut < 0 ? '' : rel.slice(0, cut);
    const list = children.get(parent);
    if (list) list.push(path.posix.basename(rel));
    else children.set(parent, [path.posix.basename(rel)]);
  }
  return children;
}

/** The regular files of a GNU tar stream by name (`./` dropped); a long name comes in its own `L` entry. */
function untar(tar: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const text = (bytes: Buffer): string => {
    const end = bytes.indexOf(0);
    return bytes.subarray(0, end < 0 ? bytes.length : end).toString('utf8');
  };
  let longName: string | null = null;
  for (let pos = 0; pos + 512 <= tar.length; ) {
    const header = tar.subarray(pos, pos + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(text(header.subarray(124, 136)).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const data = tar.subarray(pos + 512, pos + 512 + size);
    pos += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') {
      longName = text(data);
      continue;
    }
    const name = (longName ?? text(header.subarray(0, 100))).replace(/^\.\//, '');
    longName = null;
    if (type === '0' || type === '\0') files.set(name, Buffer.from(data));
  }
  return files;
}

/** scan.ts's signature of an ignored entry: its own and (a folder) its children's sizes and mtimes. */
function signature(e: RemoteEntry, names: readonly string[], entries: ReadonlyMap<string, RemoteEntry>): string {
  if (e.kind !== 'd') return `${e.size}:${e.mtimeMs}`;
  let newest = e.mtimeMs;
  let total = 0;
  for (const name of names) {
    const c = entries.get(`${e.rel}/${name}`);
    if (!c) continue;
    if (c.mtimeMs > newest) newest = c.mtimeMs;
    total += c.size;
  }
  return `${e.mtimeMs}:${names.length}:${newest}:${total}`;
}
