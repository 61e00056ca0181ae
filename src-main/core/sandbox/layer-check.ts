// A command's write layer is checked whole before any of it is applied (SPEC §7, "One
// containment for everything"): file kinds (no setuid, setgid or sticky file, no device,
// fifo or socket; links and modes are carried exactly), protected paths, and git's surface
// as the folder would be with the layer applied (layer-view.ts) compared with the folder as
// it is now. So provenance is the layer's: what differs between the two is the command's,
// whatever the age of the files involved (a folder written by an earlier command and made a
// repository by this one is this one's). What fails is left out of the layer, with every
// entry below it, and named in the blocked line; the rest is checked again until nothing
// fails. A change no entry of the layer can be blamed for leaves the whole layer out.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errnoOf } from '../fs/errno';
import { inertPart } from '../git/config';
import { snapshotGitSurface, surfaceChanges, type GitSurface, type RepositoryWalkCache, type SurfaceChange } from '../git/surface';
import type { BlockedItem } from './blocked';
import { layerView } from './layer-view';
import { isPathInside, isSlashPathInside } from '../fs/path-inside';
import { NOTHING_APPLIED, type LayerEntry, type WriteLayer } from './write-layer';

/** Rounds of "leave out what fails, check again" before the whole layer is left out. */
const MAX_ROUNDS = 6;

export interface LayerVerdict {
  /** The entries that passed, parents first: what may be applied. */
  apply: LayerEntry[];
  /** What was left out or changed (a new repository's config reduced to its inert part), for the blocked line. */
  items: BlockedItem[];
}

export interface LayerCheckOptions {
  home: string;
  /** Absolute protected paths (PROTECTED_PROJECT_PATHS and the settings'); those inside `.git` folders are git's surface. */
  protectedPaths: readonly string[];
  cache?: RepositoryWalkCache;
}

function relOf(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/** Why an entry's kind may not reach the folder, or null. */
function kindRefused(e: LayerEntry): string | null {
  if (e.kind === 'other') return 'a device, fifo or socket; not applied';
  if (e.unreadable) return 'the command left it unreadable; not applied';
  const special = e.stat.mode & 0o7000;
  if (e.kind === 'file' && special !== 0) return 'a setuid, setgid or sticky file; not applied';
  if (e.kind === 'dir' && (special & 0o4000) !== 0) return 'a setuid folder; not applied';
  return null;
}

export async function checkLayer(layer: WriteLayer, entries: readonly LayerEntry[], options: LayerCheckOptions): Promise<LayerVerdict> {
  // Nothing written: nothing to check (and no walk of the folder).
  if (entries.length === 0) return { apply: [], items: [] };
  const root = layer.projectDir;
  const upper = path.join(layer.dir, 'upper');
  const items: BlockedItem[] = [];
  const refused = new Set<string>();
  const refuse = (e: LayerEntry, why: string, report = true): void => {
    refused.add(e.rel);
    if (report) items.push({ kind: 'write', path: path.join(root, e.rel), why });
  };
  const isRefused = (rel: string): boolean => {
    for (let a = rel; a !== ''; a = a.includes('/') ? a.slice(0, a.lastIndexOf('/')) : '') if (refused.has(a)) return true;
    return false;
  };

  // File kinds.
  for (const e of entries) {
    const why = kindRefused(e);
    if (why) refuse(e, why);
  }

  // Protected paths: nothing made, changed or removed at or below one (nor one removed with a folder above it).
  const protectedRels = options.protectedPaths
    .filter((p) => isPathInside(root, p) && p !== root)
    .map((p) => relOf(root, p))
    .filter((rel) => !rel.split('/').some((part) => part.toLowerCase() === '.git'));
  const hasFilesBelow = (rel: string): boolean => entries.some((o) => o.rel !== rel && isSlashPathInside(rel, o.rel) && o.kind !== 'dir');
  for (const e of entries) {
    // Each entry on its own (not skipped below a refused folder), so that the files are named.
    if (refused.has(e.rel)) continue;
    const under = protectedRels.some((p) => isSlashPathInside(p, e.rel));
    // Above one: removing or replacing a folder that holds one, or a link the protected path would then lead through.
    const above = protectedRels.filter((p) => isSlashPathInside(e.rel, p) && p !== e.rel);
    const removesOne =
      (e.kind === 'link' && above.length > 0) || ((e.kind === 'whiteout' || e.opaque === true || e.kind !== 'dir') && above.some((p) => fs.existsSync(path.join(root, p))));
    // A folder is named only when nothing below it is (the files say more).
    if (under || removesOne) refuse(e, 'a protected path', !(e.kind === 'dir' && !e.opaque && hasFilesBelow(e.rel)));
  }

  // Git's surface, as the folder would be, against the folder as it is.
  const now = await snapshotGitSurface(root, options.home, options.cache);
  const reduced = new Set<string>();
  for (let round = 0; ; round++) {
    const apply = entries.filter((e) => !isRefused(e.rel));
    if (round >= MAX_ROUNDS) return refuseAll(root, entries, items, 'the checks did not settle');
    const byRel = new Map(apply.map((e) => [e.rel, e]));
    const merged = await snapshotGitSurface(root, options.home, options.cache, layerView(root, upper, apply));
    const changes = surfaceChanges(now, merged);
    if (changes.length === 0) return { apply, items };
    const settledBefore = refused.size + reduced.size;
    for (const change of changes) {
      const rel = relOf(root, change.path);
      const own = byRel.get(rel);
      if (change.reducible && own?.kind === 'file' && !reduced.has(rel)) {
        try {
          reduceConfig(upper, own, change);
          reduced.add(rel);
          items.push({ kind: 'write', path: change.path, why: `${change.why}; reset` });
        } catch (err) {
          refuse(own, `could not reset (${errnoOf(err)}): ${change.why}; not applied`);
        }
        continue;
      }
      const blamed = blame(root, change, rel, byRel, merged);
      if (blamed.length === 0) return refuseAll(root, entries, items, `${change.why} (${change.path})`);
      for (const e of blamed) refuse(e, '', false);
      const outcome = blamed.some((e) => e.rel === rel) ? 'not applied' : 'what would make git use it was not applied';
      items.push({ kind: 'write', path: change.path, why: change.existing && blamed.some((e) => e.rel === rel) ? change.why : `${change.why}; ${outcome}` });
    }
    // Nothing more could be left out: what remains cannot be blamed on any one entry.
    if (refused.size + reduced.size === settledBefore) return refuseAll(root, entries, items, 'what it changes in git could not be told apart');
  }
}

/** The layer's entries that make `change`: the entry itself (or the one above that replaced its folder), else what made its repository one. */
function blame(root: string, change: SurfaceChange, rel: string, byRel: ReadonlyMap<string, LayerEntry>, merged: GitSurface): LayerEntry[] {
  for (let a = rel; a !== ''; a = a.includes('/') ? a.slice(0, a.lastIndexOf('/')) : '') {
    const e = byRel.get(a);
    if (e && (a === rel || e.kind !== 'dir' || e.opaque)) return [e];
  }
  // Not the layer's own file: the layer made it part of a repository (completed a git-shaped
  // folder, or pointed a `.git` file, a link or a commondir at it).
  const gitDir = change.now.gitDir;
  if (gitDir === undefined) return [];
  const dirRel = relOf(root, gitDir);
  // Notes refs changed through packed-refs: it, with the loose refs the layer wrote or removed (packing moves them there).
  if (change.now.role === 'notes') return [...byRel.values()].filter((e) => e.rel === path.posix.join(dirRel, 'packed-refs') || isSlashPathInside(path.posix.join(dirRel, 'refs'), e.rel));
  const blamed = [...byRel.values()].filter((e) => isSlashPathInside(dirRel, e.rel));
  for (const [pointer, target] of merged.targets) {
    if (target !== gitDir) continue;
    const own = byRel.get(relOf(root, pointer));
    if (own) blamed.push(own);
  }
  // A link of the layer on the way to it.
  for (const e of byRel.values()) if (e.kind === 'link' && isSlashPathInside(e.rel, dirRel)) blamed.push(e);
  return blamed;
}

/** A new repository's config, in the layer, reduced to what runs nothing. */
function reduceConfig(upper: string, entry: LayerEntry, change: SurfaceChange): void {
  const file = path.join(upper, entry.rel);
  const temp = `${file}.deepdesk-tmp-${randomBytes(6).toString('hex')}`;
  try {
    fs.writeFileSync(temp, inertPart(change.now.content!.toString('utf8')), { mode: entry.stat.mode & 0o777, flag: 'wx' });
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
  entry.stat = fs.lstatSync(file);
}

function refuseAll(root: string, entries: readonly LayerEntry[], items: BlockedItem[], why: string): LayerVerdict {
  // First: the blocked line lists only the first few.
  if (entries.length > 0) items.unshift({ kind: 'write', path: root, why: `${why}; ${NOTHING_APPLIED}` });
  return { apply: [], items };
}
