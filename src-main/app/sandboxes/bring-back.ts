// What the agent changed in a sandbox comes back to the thread's worktree (SPEC §18) after the
// same whole-layer check as a local command's writes (core/sandbox/layer-check.ts: git's
// surface, protected paths, file kinds, set-id bits). The sandbox's files are listed with
// POSIX tools (`find`, `cksum`, `readlink`) and compared with the manifest of what it holds
// as far as Deepdesk knows; only what differs is downloaded, into a layer beside the
// worktree, checked whole and applied as a local command's layer is.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BlockedItem } from '../../core/sandbox/blocked';
import { applyCheckedLayer, LayerNotApplied } from '../../core/sandbox/apply-checked-layer';
import { discardLayer, type LayerEntry, type WriteLayer } from '../../core/sandbox/write-layer';
import type { StepAttribution } from '../../core/process/attribution';
import type { ReviewLayer } from '../../core/sandbox/types';
import { byteGroups } from '../../core/text/byte-groups';
import { shQuote } from '../../core/text/shell-quote';
import type { ProviderSandbox } from '../../core/sandbox-providers/provider';
import type { Manifest, ManifestEntry } from './folder-upload';
import { BATCH_BYTES, capBringBack, lackOfSpace, DEFAULT_BRING_BACK_LIMITS, downloadToDisk, PIECE_BYTES, type BringBackLimits, type Prestaged } from './bring-back-download';

/**
 * Lists, under `starts`, every file (its mode, size, change time and inode), link (its target),
 * what may not come back (fifos, sockets, devices) and any path with a line break (`n`: not
 * entered) as NUL-separated records, after the sandbox's clock at the start (`s`: the change time
 * of the scan's own folder, made first, on the clock the files' change times come from); then, after
 * `marker`, the `cksum` lines of the files changed since `since` (all of them without it). One
 * walk of the tree: the same `find` writes the changed files' names (and those small enough to
 * stage) to lists in a folder of the scan's own, which `cksum` (and the staging's `cat`) then
 * read, in the same order. The sandbox chooses the names, so nothing in them can shape the
 * listing: records and lists are NUL-separated, the marker is new for each scan, and the only
 * line-based part (cksum's) never sees a path with a line break.
 */
function scanScript(starts: readonly string[], marker: string, since: number | undefined, stage: PreStage | undefined): string {
  const from = starts.map(shQuote).join(' ');
  const skip = `-path ./.git -prune -o -path "*$NL*" -prune -printf 'n\\0%p\\0' -o`;
  const changed = since === undefined ? '' : `-newerct @${since.toFixed(3)} `;
  // The files changed since `since` of at most `maxFileBytes` (`-size -Nk`: at most N-1 KiB, rounded up) are listed to be staged
  // (only with an earlier listing: else every file would be), joined in the order cksum reads them, cut at `maxBytes`: `p` says they
  // were (in the stage folder, new to this scan).
  const staging = stage !== undefined && since !== undefined;
  const small = staging ? ` \\( -size -${Math.floor(stage.maxFileBytes / 1024) + 1}k -fprint0 "$D/s" -o -true \\)` : '';
  const files = `-type f -printf 'f\\0%m\\0%s\\0%C@\\0%i\\0%p\\0' \\( ${changed}-fprint0 "$D/c"${small} -o -true \\)`;
  const links = `-type l -printf 'l\\0%p\\0%l\\0'`;
  const others = `\\( -type p -o -type s -o -type b -o -type c \\) -printf 'o\\0%p\\0'`;
  return [
    `NL='\n'`,
    // The lists' folder: the stage folder when this scan made it, else a temporary one of its own (removed at the end).
    // (Not TMPDIR's: the sandbox's environment could put it in the folder listed.)
    `ownLists() { D=$(mktemp -d /tmp/deepdesk-list.XXXXXXXXXX) || { echo 'no room for a temporary folder in /tmp'; exit 97; }; M=0; P=0; T=$D; }`,
    stage !== undefined ? `if mkdir -m 700 -- ${shQuote(stage.dir)} 2>/dev/null; then D=${shQuote(stage.dir)}; M=1; P=${staging ? 1 : 0}; else ownLists; fi` : 'ownLists',
    // The sandbox's clock at the start is the lists' folder's change time, just made: the clock change times are read from.
    `find "$D" ${from} -path "$D" -prune -printf 's\\0%C@\\0' -o ${skip} ${files} -o ${links} -o ${others} 2>/dev/null`,
    // `d`: the stage folder was made (the caller removes it).
    `[ "$M" = 0 ] || printf 'd\\0\\0'`,
    ...(staging ? [`[ "$P" = 1 ] && xargs -0 -r cat -- < "$D/s" 2>/dev/null | head -c ${stage.maxBytes} > "$D/pre" && printf 'p\\0\\0'`] : []),
    `printf '\\0%s\\0' ${marker}`,
    `xargs -0 -r cksum -- < "$D/c" 2>/dev/null`,
    `[ -z "\${T-}" ] || rm -rf -- "$T"`,
  ].join('\n');
}

/** A file as the sandbox listed it: its cksum and size (cksum's), its kind bits, and its change time and inode (find's). */
export interface ListedFile {
  crc: number;
  size: number;
  exec: boolean;
  setuid: boolean;
  setgid: boolean;
  ctime: string;
  ino: string;
}

/** Where and how much a listing stages of the files it reads (bring-back-download.ts takes them from there). */
export interface PreStage {
  /** A folder in the sandbox new to this listing (made by it, 0700). */
  dir: string;
  /** Files larger are not staged (a multiple of 1024). */
  maxFileBytes: number;
  /** The staged files joined are cut at this many bytes. */
  maxBytes: number;
}

export interface SandboxState {
  files: Map<string, ListedFile>;
  links: Map<string, string>;
  others: Set<string>;
  /** Paths with a line break in their name: not looked into, never brought back. */
  lineBroken: Set<string>;
  /** The sandbox's clock when the listing began (seconds), when it could be read. */
  startedAt?: number;
  /** The files the listing's own script read, in its order (what it staged, joined, is in this order). */
  readInOrder: Array<{ rel: string; size: number; crc: number }>;
  /** The stage folder (`PreStage`), when the listing made it (holding its lists): removed by the caller. */
  stageDir?: string;
  /** Whether the listing staged what it read there (`pre`). */
  prestaged: boolean;
}

/** A path as the scan's `find` printed it (`./…` under the workdir) as folder-relative; undefined when it is not one. */
function relOfFound(p: string): string | undefined {
  if (!p.startsWith('./')) return undefined;
  const rel = p.slice(2);
  return rel !== '' && rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..') ? rel : undefined;
}

/**
 * How long before a listing a change time must be for the file to be trusted unread next time:
 * a write in the same tick of the kernel's clock right after `find` looked keeps the change time
 * it saw. A change time with no fraction is from a file system that keeps whole seconds (or two).
 */
function racyWindow(ctime: string): number {
  return /^\d+(\.0*)?$/.test(ctime) ? 2 : 0.05;
}

/** The manifest's file entry, when the file listed now is still the one a listing saw then (same change time, inode and size, changed well before that listing). */
function stillAsSeen(entry: ManifestEntry | undefined, size: number, ctime: string, ino: string): Extract<ManifestEntry, { crc: number }> | undefined {
  if (entry === undefined || !('crc' in entry) || entry.seen === undefined) return undefined;
  const { at, ctime: seenCtime, ino: seenIno } = entry.seen;
  const c = Number(ctime);
  return entry.size === size && seenCtime === ctime && seenIno === ino && Number.isFinite(c) && c < at - racyWindow(ctime) ? entry : undefined;
}

/** Folder-relative path → [crc, size] from `cksum` lines (only paths of the workdir's form). */
function cksumLines(text: string, into: Map<string, [number, number]>): void {
  for (const line of text.split('\n')) {
    const m = /^(\d+) (\d+) (.+)$/.exec(line);
    const rel = m ? relOfFound(m[3]!) : undefined;
    if (m && rel !== undefined) into.set(rel, [Number(m[1]), Number(m[2])]);
  }
}

/**
 * Lists the sandbox's files under `starts`. With `known` (the manifest), only the files whose
 * change time is not older than every earlier listing's are read by `cksum` in the listing's
 * script; a file not read there keeps the manifest's cksum only when its change time, inode and
 * size are the ones an earlier listing saw, well before that listing began — else it is read
 * by one more script. Every file in the answer has the cksum of what it holds.
 */
export async function scanSandbox(sandbox: ProviderSandbox, starts: readonly string[] = ['.'], signal?: AbortSignal, known: Manifest = {}, stage?: PreStage): Promise<SandboxState> {
  const marker = `deepdesk-scan-${randomBytes(12).toString('hex')}`;
  let since: number | undefined;
  for (const e of Object.values(known)) if ('crc' in e && e.seen !== undefined && Number.isFinite(e.seen.at)) since = Math.min(since ?? Infinity, e.seen.at - racyWindow(e.seen.ctime));
  if (since !== undefined && !(since > 0)) since = undefined;
  const exec = (script: string) => sandbox.execute(script, { cwd: sandbox.workdir, timeoutMs: 300_000, oneCall: true, ...(signal ? { signal } : {}) });
  const r = await exec(scanScript(starts, marker, since, stage));
  if (r.exitCode === null || r.timedOut) throw new Error(r.timedOut ? 'listing the sandbox’s files took too long' : 'listing the sandbox’s files was stopped');
  const at = r.output.indexOf(`\0${marker}\0`);
  if (at < 0) throw new Error(`could not list the sandbox’s files: ${r.output.slice(-300)}`);
  const fields = r.output.slice(0, at).split('\0');
  const state: SandboxState = { files: new Map(), links: new Map(), others: new Set(), lineBroken: new Set(), readInOrder: [], prestaged: false };
  const listed = new Map<string, { mode: number; size: number; ctime: string; ino: string }>();
  for (let i = 0; i < fields.length; ) {
    const kind = fields[i];
    if (kind === 'd' || kind === 'p') {
      if (stage && kind === 'd') state.stageDir = stage.dir;
      else if (stage) state.prestaged = true;
      i += 2;
    } else if (kind === 's') {
      const t = /^\d+\.\d+$/.test(fields[i + 1] ?? '') ? Number(fields[i + 1]) : NaN;
      if (i === 0 && Number.isFinite(t)) state.startedAt = t;
      i += 2;
    } else if (kind === 'f') {
      const rel = relOfFound(fields[i + 5] ?? '');
      const mode = parseInt(fields[i + 1] ?? '', 8);
      const size = /^\d+$/.test(fields[i + 2] ?? '') ? Number(fields[i + 2]) : NaN;
      if (rel !== undefined && !Number.isNaN(mode) && !Number.isNaN(size)) listed.set(rel, { mode, size, ctime: fields[i + 3] ?? '', ino: fields[i + 4] ?? '' });
      i += 6;
    } else if (kind === 'l') {
      const rel = relOfFound(fields[i + 1] ?? '');
      if (rel !== undefined) state.links.set(rel, fields[i + 2] ?? '');
      i += 3;
    } else if (kind === 'o' || kind === 'n') {
      const rel = relOfFound(fields[i + 1] ?? '');
      if (rel !== undefined) (kind === 'o' ? state.others : state.lineBroken).add(rel);
      i += 2;
    } else i += 1;
  }
  // cksum's lines name only files listed above (none has a line break): anything else is not one of them.
  const sums = new Map<string, [number, number]>();
  cksumLines(r.output.slice(at + marker.length + 2), sums);
  for (const [rel, [crc, size]] of sums) state.readInOrder.push({ rel, size, crc });
  const unread: string[] = [];
  for (const [rel, l] of listed) {
    if (sums.has(rel)) continue;
    const entry = stillAsSeen(known[rel], l.size, l.ctime, l.ino);
    if (entry) sums.set(rel, [entry.crc, entry.size]);
    else unread.push(rel);
  }
  // Not read by the listing and not as an earlier listing saw it: read now (a file that changed time backwards, or an entry never listed).
  for (const batch of byteGroups(unread, 64 * 1024, (rel) => shQuote(`./${rel}`).length + 1)) {
    const more = await exec(`cksum -- ${batch.map((rel) => shQuote(`./${rel}`)).join(' ')} 2>/dev/null`);
    if (more.exitCode === null || more.timedOut) throw new Error(more.timedOut ? 'listing the sandbox’s files took too long' : 'listing the sandbox’s files was stopped');
    const got = new Map<string, [number, number]>();
    cksumLines(more.output, got);
    for (const rel of batch) {
      const sum = got.get(rel);
      if (sum) sums.set(rel, sum);
    }
  }
  for (const [rel, l] of listed) {
    const sum = sums.get(rel);
    if (sum === undefined) continue;
    state.files.set(rel, { crc: sum[0], size: sum[1], exec: (l.mode & 0o100) !== 0, setuid: (l.mode & 0o4000) !== 0, setgid: (l.mode & 0o2000) !== 0, ctime: l.ctime, ino: l.ino });
  }
  return state;
}

export interface BringBackResult {
  /** Folder-relative paths written, made or removed in the worktree. */
  applied: string[];
  /** What the check left out (for the `[Sandbox blocked …]` line). */
  blocked: BlockedItem[];
  /** The manifest after: the sandbox's state as far as it was checked. */
  manifest: Manifest;
}

export interface BringBackOptions {
  sandbox: ProviderSandbox;
  /** The worktree's thread folder (real path): where the changes land. */
  folder: string;
  manifest: Manifest;
  home: string;
  /** Absolute protected paths (the folder's sandbox policy). */
  protectedPaths: readonly string[];
  /** Only these folder-relative paths (a file tool's), else the whole folder. */
  only?: readonly string[];
  signal?: AbortSignal;
  /** The checkpoint step the changes belong to (the command's tool call): recorded as its own, as a local sandboxed command's are. */
  attribution?: StepAttribution;
  /** Reviews the changes' sensitive writes before they are applied (SPEC §23 (5)), as a local command's layer is. */
  reviewLayer?: ReviewLayer;
  /** Settings › Sandboxes' caps on what comes back (default DEFAULT_BRING_BACK_LIMITS). */
  limits?: BringBackLimits;
  /** Where the layer folder is made (default the temp folder); its disk's free space is checked. */
  layerRoot?: string;
}

function sameEntry(a: ManifestEntry | undefined, b: ManifestEntry): boolean {
  if (a === undefined) return false;
  if ('link' in a || 'link' in b) return 'link' in a && 'link' in b && a.link === b.link;
  if ('other' in a || 'other' in b) return 'other' in a && 'other' in b;
  return a.crc === b.crc && a.size === b.size && a.exec === b.exec && a.setid === b.setid;
}

/** The manifest's entry for a listed file; with `at` (the listing's start), what that listing saw of it. */
function fileEntry(f: ListedFile, at?: number): ManifestEntry {
  return { crc: f.crc, size: f.size, exec: f.exec, ...(f.setuid || f.setgid ? { setid: true as const } : {}), ...(at !== undefined ? { seen: { at, ctime: f.ctime, ino: f.ino } } : {}) };
}

export async function bringBack(options: BringBackOptions): Promise<BringBackResult> {
  const { sandbox, manifest } = options;
  const starts = options.only ? options.only.map((rel) => `./${rel}`) : ['.'];
  const limits = options.limits ?? DEFAULT_BRING_BACK_LIMITS;
  // What the listing reads, it stages too (under the caps), so a change comes down with no staging script of its own.
  const stage: PreStage = {
    dir: `/tmp/deepdesk-back-${randomBytes(12).toString('hex')}`,
    maxFileBytes: Math.floor(Math.min(PIECE_BYTES, limits.maxFileBytes) / 1024) * 1024,
    maxBytes: Math.min(BATCH_BYTES, limits.maxStepBytes),
  };
  // As the download's own staging is removed: not once the bring-back was stopped (a stopped step makes no more calls).
  const removeStage = (): Promise<unknown> =>
    sandbox.execute(`rm -rf -- ${shQuote(stage.dir)}`, { cwd: sandbox.workdir, timeoutMs: 300_000, oneCall: true, ...(options.signal ? { signal: options.signal } : {}) }).catch(() => undefined);
  let state: SandboxState;
  try {
    state = await scanSandbox(sandbox, starts, options.signal, manifest, stage);
  } catch (err) {
    await removeStage();
    throw err;
  }
  // Waited for before the bring-back ends (a step's calls are done when it is), after the layer was applied here.
  let removal: Promise<unknown> | undefined;
  try {
    return await bringBackListed(options, limits, state, stage, (removed) => void (removal = removed));
  } finally {
    if (removal === undefined && state.stageDir !== undefined) removal = removeStage();
    await removal;
  }
}

async function bringBackListed(options: BringBackOptions, limits: BringBackLimits, state: SandboxState, stage: PreStage, handOver: (removed: Promise<unknown>) => void): Promise<BringBackResult> {
  const { sandbox, manifest } = options;
  const inScope = (rel: string): boolean => !options.only || options.only.some((o) => rel === o || rel.startsWith(`${o}/`));

  const changedFiles: string[] = [];
  const changedLinks: string[] = [];
  const removed: string[] = [];
  for (const [rel, f] of state.files) if (!sameEntry(manifest[rel], fileEntry(f))) changedFiles.push(rel);
  for (const [rel, target] of state.links) if (!sameEntry(manifest[rel], { link: target })) changedLinks.push(rel);
  // A path with a line break was not looked into: what the manifest has there is not known to be gone.
  for (const rel of Object.keys(manifest)) if (inScope(rel) && !rel.includes('\n') && !state.files.has(rel) && !state.links.has(rel) && !state.others.has(rel)) removed.push(rel);
  const others = [...state.others].filter((rel) => !sameEntry(manifest[rel], { other: true }));
  const lineBroken = [...state.lineBroken].filter((rel) => !sameEntry(manifest[rel], { other: true }));
  const unnamed: BlockedItem[] = lineBroken.map((rel) => ({ kind: 'write', path: path.join(options.folder, rel), why: 'a name with a line break; not brought back' }));
  const next: Manifest = { ...manifest };
  // A file as the manifest has it, listed now: known as this listing saw it (its change time and inode).
  if (state.startedAt !== undefined) {
    const changed = new Set(changedFiles);
    for (const [rel, f] of state.files) if (!changed.has(rel)) next[rel] = fileEntry(f, state.startedAt);
  }
  for (const rel of lineBroken) next[rel] = { other: true };
  if (changedFiles.length + changedLinks.length + removed.length + others.length === 0) return { applied: [], blocked: unnamed, manifest: next };

  // The caps of Settings › Sandboxes and the disks' free space, from the sizes the sandbox listed: before anything comes down.
  const { take, refused } = capBringBack(
    changedFiles.map((rel) => ({ rel, size: state.files.get(rel)!.size, crc: state.files.get(rel)!.crc })),
    limits,
  );
  const prestaged: Prestaged | undefined =
    state.stageDir === undefined ? undefined : { dir: state.stageDir, order: state.prestaged ? state.readInOrder : [], maxFileBytes: stage.maxFileBytes, maxBytes: stage.maxBytes, refused: new Set(refused.map((r) => r.rel)) };
  const over: BlockedItem[] = refused.map((r) => ({ kind: 'write', path: path.join(options.folder, r.rel), why: r.why }));
  const layerRoot = options.layerRoot ?? tmpdir();
  // Refused whole, as a layer that could not be checked is: reported blocked, nothing applied, all looked at again next time.
  const noRoom = await lackOfSpace([layerRoot, options.folder], take.reduce((sum, f) => sum + f.size, 0));
  if (noRoom !== undefined) return { applied: [], blocked: [...unnamed, { kind: 'write', path: '', why: noRoom }], manifest: next };
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(layerRoot, 'deepdesk-bring-back-')));
  const upper = path.join(dir, 'upper');
  fs.mkdirSync(upper);
  try {
    const modes = new Map<string, number>();
    const put = (rel: string): string => {
      const abs = path.join(upper, rel);
      if (!abs.startsWith(upper + path.sep)) throw new Error(`not a path in the folder: ${JSON.stringify(rel)}`);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      return abs;
    };
    // Streamed to the layer folder in pieces, after the caps and the free space were checked above.
    // The sandbox's staging is removed while the layer is checked and applied here (waited for by bringBack).
    const got = await downloadToDisk(sandbox, take, put, options.signal, handOver, prestaged);
    for (const rel of got) {
      const f = state.files.get(rel)!;
      const mode = (f.exec ? 0o755 : 0o644) | (f.setuid ? 0o4000 : 0) | (f.setgid ? 0o2000 : 0);
      modes.set(rel, mode);
      fs.chmodSync(path.join(upper, rel), f.exec ? 0o755 : 0o644);
    }
    for (const rel of changedLinks) fs.symlinkSync(state.links.get(rel)!, put(rel));
    for (const rel of others) fs.writeFileSync(put(rel), '');

    const entries = layerEntries(upper, removed, new Set(others), modes);
    const layer: WriteLayer = {
      dir,
      projectDir: options.folder,
      tools: { overlayExec: '' },
      wrap: () => {
        throw new Error('a brought-back layer runs nothing');
      },
    };
    let checked: Awaited<ReturnType<typeof applyCheckedLayer>>;
    try {
      checked = await applyCheckedLayer(layer, entries, { home: options.home, protectedPaths: options.protectedPaths, attribution: options.attribution, ...(options.reviewLayer ? { review: options.reviewLayer } : {}) });
    } catch (err) {
      // Nothing applied: the bring-back fails with why, and everything is looked at again next time.
      throw err instanceof LayerNotApplied ? err.cause : err;
    }
    const { verdict, applied: result } = checked;
    const blocked: BlockedItem[] = [...unnamed, ...over, ...verdict.items, ...result.failed.map((f) => ({ kind: 'write' as const, path: path.join(options.folder, f.rel), why: f.why }))];
    const failed = new Set(result.failed.map((f) => f.rel));
    // Checked (applied or left out) is known; what failed to apply is looked at again next time.
    for (const rel of changedFiles) {
      const f = state.files.get(rel)!;
      if (!failed.has(rel) && modes.has(rel)) next[rel] = fileEntry(f, state.startedAt);
    }
    for (const rel of changedLinks) if (!failed.has(rel)) next[rel] = { link: state.links.get(rel)! };
    for (const rel of removed) if (!failed.has(rel)) delete next[rel];
    for (const rel of others) next[rel] = { other: true };
    return { applied: result.touched, blocked, manifest: next };
  } finally {
    discardLayer(dir);
  }
}

/** The layer's entries, parents first, as readLayer gives a local command's (removals as whiteouts). */
function layerEntries(upper: string, removed: readonly string[], others: ReadonlySet<string>, modes: ReadonlyMap<string, number>): LayerEntry[] {
  const entries: LayerEntry[] = [];
  const visit = (abs: string, rel: string): void => {
    for (const name of fs.readdirSync(abs).sort()) {
      const childAbs = path.join(abs, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const st = fs.lstatSync(childAbs);
      if (st.isDirectory()) {
        entries.push({ rel: childRel, kind: 'dir', stat: st });
        visit(childAbs, childRel);
      } else if (st.isSymbolicLink()) entries.push({ rel: childRel, kind: 'link', stat: st });
      else if (others.has(childRel)) entries.push({ rel: childRel, kind: 'other', stat: st });
      else {
        const mode = modes.get(childRel);
        // The set-id bits are the sandbox's, so the check refuses the file as it would a local one.
        const stat = mode === undefined ? st : Object.assign(Object.create(Object.getPrototypeOf(st) as object) as fs.Stats, st, { mode: (st.mode & ~0o7777) | mode });
        entries.push({ rel: childRel, kind: 'file', stat });
      }
    }
  };
  visit(upper, '');
  const dirStat = fs.lstatSync(upper);
  for (const rel of removed) entries.push({ rel, kind: 'whiteout', stat: dirStat });
  // Parents before their children, in path order.
  return entries.sort((a, b) => comparePaths(a.rel, b.rel));
}

function comparePaths(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
  return pa.length - pb.length;
}
