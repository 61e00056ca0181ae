// The write layer (Linux): a sandboxed command sees the project folder through an overlay
// whose lower layer is the real folder and whose upper layer is a private folder of the run.
// Everything the command's processes write lands in the upper layer, so after the run it is
// known exactly what they changed (SPEC §8: a change is the agent's only if the step's own
// processes made it); an edit the person saves meanwhile lands in the real folder and stays
// theirs. When the command has ended (its pid namespace is gone, nothing of it still runs),
// the upper layer is checked whole (layer-check.ts) and what passed is applied to the real
// folder by `applyLayer`, whole or not at all, as the person, never through a link
// (no-follow.ts), between the checkpoint recorder's snapshots.
//
// Mounting: overlay-exec (native/overlay-exec.c, built into out/native/) makes a user and mount
// namespace in which an unprivileged overlay can be mounted (Linux ≥ 5.11, `userxattr`), as
// `unshare -r -m` and `mount` would without their start-up; bwrap (0.8 has no overlay option)
// then runs inside it as before, mapping the person's uid back. Where this is unavailable (the
// program not built, an older kernel, an upper folder without user xattrs) commands run on the
// live folder as before and the recorder cannot attribute their changes (see recorder.ts).
//
// Opaque folders (a folder the command removed and made again) are marked with an xattr
// Node cannot read; they are recognised by mounting the two layers read-only once more and
// checking whether a name of the real folder is still visible there.

import { isSlashPathInside } from '../fs/path-inside';
import { runToEnd } from '../process/spawn';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LayerSettlement } from '../process/attribution';
import { lstatAt, mkdirAt, parentOf, placeFileAt, readdirAt, removeTreeAt, renameInParentAt, replaceAt, rmdirAt, ThroughLinkError, unlinkAt } from '../fs/no-follow';
import { errnoOf } from '../fs/errno';
import { withSignalsDeferred } from './defer-signals';
import { GIT_ACTIVATING_NAMES } from '../git/git-reads';
import { builtProgram } from '../process/built-program';
import { makeRunFolder, removeRunFolder, removeRunFolderSync } from './run-folders';

export interface LayerTools {
  /** native/overlay-exec.c, built. */
  overlayExec: string;
}

/** One entry of the upper layer, parents before their children. */
export interface LayerEntry {
  rel: string;
  /** 'other': a device, fifo or socket, which never reaches the folder (layer-check.ts). */
  kind: 'whiteout' | 'dir' | 'file' | 'link' | 'other';
  /** A folder made anew: what the real folder holds there and the layer does not was removed. */
  opaque?: boolean;
  /** A folder whose names could not be read: what it holds is unknown, so it is not applied. */
  unreadable?: boolean;
  stat: fs.Stats;
}

export interface WriteLayer {
  /** The run's private folder: upper/, work/, and where needed lower/ (the real folder, bound) and view/. */
  readonly dir: string;
  readonly projectDir: string;
  readonly tools: LayerTools;
  /** The launcher and its arguments that run `file args` (an absolute path) with the folder overlaid. */
  wrap(file: string, args: string[]): { file: string; args: string[] };
}

/** A path overlay's lowerdir option takes as it is (its separators are ',' and ':'; '\\' escapes). */
export const PLAIN_OPTION_PATH = /^[^,:\\\n]+$/;

/** The lower layer's path in a mount option: the folder itself, or a bind of it in the layer's folder. */
function lowerOf(layer: { dir: string; projectDir: string }): string {
  return PLAIN_OPTION_PATH.test(layer.projectDir) ? layer.projectDir : path.join(layer.dir, 'lower');
}

/** overlay-exec's bind arguments: none, or the real folder bound at the layer's lower/ (lowerOf). */
function bindArgs(layer: { dir: string; projectDir: string }): [string, string] {
  const lower = lowerOf(layer);
  return lower === layer.projectDir ? ['', ''] : [layer.projectDir, lower];
}

/** Prints (NUL-separated) the given names that are not visible in the layers merged read-only (in `$1`, the view). */
const HIDDEN_NAMES_SCRIPT = ['cd "$1" || exit 125', 'shift', 'for x; do [ -e "$x" ] || [ -h "$x" ] || printf \'%s\\0\' "$x"; done'].join('\n');

async function run(file: string, args: string[]): Promise<{ ok: boolean; stdout: Buffer; stderr: string }> {
  const r = await runToEnd({ role: 'probe', file, args, timeoutMs: 20_000 });
  return { ok: r.code === 0 && r.spawnError === undefined && !r.timedOut && !r.truncated, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

/** A layer's folder with upper/ and work/; lower/ only where the folder's path needs a bind (lowerOf), view/ only when markOpaque looks (each folder is one more to remove after the run). */
function makeLayerDir(projectDir: string): string {
  const dir = fs.realpathSync(makeRunFolder('deepdesk-layer-'));
  for (const sub of ['upper', 'work']) fs.mkdirSync(path.join(dir, sub));
  if (!PLAIN_OPTION_PATH.test(projectDir)) fs.mkdirSync(path.join(dir, 'lower'));
  return dir;
}

let probed: Promise<LayerTools | undefined> | undefined;

/** The tools, when a real overlay with a whiteout and an opaque folder works here (checked once). */
export function writeLayerTools(): Promise<LayerTools | undefined> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<LayerTools | undefined> {
  if (process.platform !== 'linux') return undefined;
  const overlayExec = builtProgram('overlay-exec');
  if (!overlayExec) return undefined;
  const tools = { overlayExec };
  const folder = makeRunFolder('deepdesk-layer-probe-');
  let layerDir: string | undefined;
  try {
    const project = fs.realpathSync(folder);
    fs.writeFileSync(path.join(project, 'gone'), 'x');
    fs.mkdirSync(path.join(project, 'again'));
    fs.writeFileSync(path.join(project, 'again', 'old'), 'x');
    const layer = createWriteLayer(tools, project);
    layerDir = layer.dir;
    const { file, args } = layer.wrap('/bin/sh', ['-c', 'cd "$1" && rm gone && rm -r again && mkdir again && echo new > again/new', 'sh', project]);
    const ran = await run(file, args);
    if (!ran.ok) return undefined;
    const entries = await readLayer(layer);
    const byRel = new Map(entries.map((e) => [e.rel, e]));
    const works = byRel.get('gone')?.kind === 'whiteout' && byRel.get('again')?.opaque === true && byRel.get('again/new')?.kind === 'file';
    // Nothing reached the real folder.
    return works && fs.existsSync(path.join(project, 'gone')) ? tools : undefined;
  } catch {
    return undefined;
  } finally {
    if (layerDir) discardLayer(layerDir);
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** A layer for one run over `projectDir` (a real path); throws where its paths cannot be used. */
export function createWriteLayer(tools: LayerTools, projectDir: string): WriteLayer {
  const dir = makeLayerDir(projectDir);
  liveLayers.add(dir);
  if (!cleanupOnExit) {
    cleanupOnExit = true;
    process.once('exit', discardLiveLayers);
  }
  // Named in the upperdir and workdir options, which cannot be escaped around like the folder.
  if (!PLAIN_OPTION_PATH.test(dir)) {
    discardLayer(dir);
    throw new Error(`the temp folder's path cannot be used for an overlay: ${dir}`);
  }
  return {
    dir,
    projectDir,
    tools,
    wrap(file, args) {
      const lower = lowerOf({ dir, projectDir });
      return {
        file: tools.overlayExec,
        args: [...bindArgs({ dir, projectDir }), 'rw', `lowerdir=${lower},upperdir=${dir}/upper,workdir=${dir}/work,userxattr`, projectDir, file, ...args],
      };
    },
  };
}

/** Layers not discarded yet: a process that ends in the middle of a run leaves none behind. */
const liveLayers = new Set<string>();
let cleanupOnExit = false;

function discardLiveLayers(): void {
  for (const dir of [...liveLayers]) discardLayer(dir);
}

export function discardLayer(dir: string): void {
  liveLayers.delete(dir);
  removeRunFolderSync(dir);
}

/** The folders of a layer that nothing was written to (overlay makes `work/work`), deepest first. */
const EMPTY_LAYER = ['upper', 'work/work', 'work', 'lower', 'view', ''];
/** Made only where needed (makeLayerDir, markOpaque): looked for first, as an error costs more than the look. */
const MADE_IF_NEEDED = new Set(['lower', 'view']);

/**
 * discardLayer without blocking the event loop (a layer's removal is the slow part of a
 * run's end). A layer of empty folders (a command that wrote nothing) goes by a handful of
 * rmdir calls; any other, whole.
 */
export async function discardLayerAsync(dir: string): Promise<void> {
  try {
    for (const sub of EMPTY_LAYER) {
      if (MADE_IF_NEEDED.has(sub) && !fs.existsSync(path.join(dir, sub))) continue;
      try {
        await fs.promises.rmdir(path.join(dir, sub));
      } catch (err) {
        // A folder this layer never had (lower/ and view/ are made only when needed; a mount that failed).
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  } catch {
    // Not empty: removed whole.
    await removeRunFolder(dir);
  }
  liveLayers.delete(dir);
}

/** What the command wrote (the upper layer), parents first, with opaque folders marked. */
export async function readLayer(layer: WriteLayer): Promise<LayerEntry[]> {
  const upper = path.join(layer.dir, 'upper');
  const entries: LayerEntry[] = [];
  const visit = (abs: string, rel: string, self?: LayerEntry): void => {
    let names: string[];
    try {
      names = fs.readdirSync(abs).sort();
    } catch {
      if (self) self.unreadable = true;
      return;
    }
    for (const name of names) {
      const childAbs = path.join(abs, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      let st: fs.Stats;
      try {
        st = fs.lstatSync(childAbs);
      } catch {
        continue;
      }
      if (st.isCharacterDevice() && st.rdev === 0) entries.push({ rel: childRel, kind: 'whiteout', stat: st });
      else if (st.isDirectory()) {
        const entry: LayerEntry = { rel: childRel, kind: 'dir', stat: st };
        entries.push(entry);
        visit(childAbs, childRel, entry);
      } else if (st.isFile()) entries.push({ rel: childRel, kind: 'file', stat: st });
      else if (st.isSymbolicLink()) entries.push({ rel: childRel, kind: 'link', stat: st });
      else entries.push({ rel: childRel, kind: 'other', stat: st });
    }
  };
  visit(upper, '');
  await markOpaque(layer, entries);
  return entries;
}

/**
 * A folder of the layer hides the real folder's other names when it is opaque. For every
 * layer folder whose real counterpart holds a name the layer does not, that name is looked
 * up in the layers merged read-only: not visible there means the folder is opaque. A name
 * the person removed meanwhile proves nothing and leaves the folder as not opaque.
 */
async function markOpaque(layer: WriteLayer, entries: LayerEntry[]): Promise<void> {
  const inLayer = new Set(entries.map((e) => e.rel));
  const probes = new Map<string, LayerEntry>();
  for (const e of entries) {
    if (e.kind !== 'dir') continue;
    const st = safeLstat(layer.projectDir, e.rel);
    if (!st?.isDirectory()) continue;
    const name = readdirSafe(layer.projectDir, e.rel).find((n) => !inLayer.has(`${e.rel}/${n}`));
    if (name !== undefined) probes.set(`${e.rel}/${name}`, e);
  }
  if (probes.size === 0) return;
  fs.mkdirSync(path.join(layer.dir, 'view'), { recursive: true });
  const names = [...probes.keys()];
  // Argument lists are bounded; a few thousand short names per call.
  for (let i = 0; i < names.length; i += 2000) {
    const chunk = names.slice(i, i + 2000);
    const view = path.join(layer.dir, 'view');
    const options = `userxattr,lowerdir=${layer.dir}/upper:${lowerOf(layer)}`;
    const ran = await run(layer.tools.overlayExec, [...bindArgs(layer), 'ro', options, view, '/bin/sh', '-c', HIDDEN_NAMES_SCRIPT, 'sh', view, ...chunk]);
    // Not knowing which folders were made anew, the layer cannot be checked as it would apply.
    if (!ran.ok) throw Object.assign(new Error(`could not tell the folders made anew: ${ran.stderr.trim()}`), { code: 'EOPAQUE' });
    for (const hidden of ran.stdout.toString('utf8').split('\0')) {
      const entry = probes.get(hidden);
      // Still in the real folder: the layer really hides it.
      if (entry && safeLstat(layer.projectDir, hidden)) entry.opaque = true;
    }
  }
}

function safeLstat(root: string, rel: string): fs.Stats | undefined {
  try {
    return lstatAt(root, rel);
  } catch {
    return undefined;
  }
}

function readdirSafe(root: string, rel: string): string[] {
  try {
    return readdirAt(root, rel).sort();
  } catch {
    return [];
  }
}

export interface AppliedLayer extends LayerSettlement {
  /** Folder-relative paths the command changed: written, made or removed (a removed folder with all below it). */
  touched: string[];
  /** Removed or made anew, so everything below them is the command's too. */
  subtrees: string[];
  /** What could not be applied, with why. */
  failed: Array<{ rel: string; why: string }>;
}

/** What applying these entries will change (attribution.ts), known before it is done. */
export function plannedBy(entries: readonly LayerEntry[]): LayerSettlement {
  return { touched: entries.filter((e) => e.kind !== 'other').map((e) => e.rel), subtrees: entries.filter((e) => e.kind === 'whiteout' || e.opaque).map((e) => e.rel) };
}

/** Whether a file or link in the real folder was made or changed by someone else while the command ran (spared by its removals). */
export type Spare = (rel: string, st: fs.Stats) => boolean;

/** Ends the reason of a layer that was not applied at all. */
export const NOTHING_APPLIED = "none of the command's writes was applied";

/** Room kept free on the folder's disk beyond what the copied files need. */
const SPACE_RESERVE = 1024 * 1024;
const STAGE_MARK = '.deepdesk-stage-';

/** Tests: called before each entry is staged, to fail it as a full disk would. */
let stageHook: ((rel: string) => void) | null = null;
export function setStageHookForTests(hook: ((rel: string) => void) | null): void {
  stageHook = hook;
}

function stagedName(rel: string, suffix: string): string {
  return `.${path.posix.basename(rel).slice(0, 100)}${STAGE_MARK}${suffix}`;
}

/** Bytes the folder's disk must take: the files' apparent sizes (a sparse file may be filled in by a copy) when they cannot be moved. */
function bytesNeeded(layer: WriteLayer, entries: readonly LayerEntry[]): number {
  if (fs.statSync(path.join(layer.dir, 'upper')).dev === fs.statSync(layer.projectDir).dev) return 0;
  return entries.reduce((sum, e) => sum + (e.kind === 'file' ? e.stat.size : 0), 0);
}

/**
 * Applies the layer's entries (already checked: layer-check.ts) to the real folder, never
 * through a link in a parent folder, whole or not at all:
 * 1. what cannot be applied as the folder is now (a link in a parent, a file where the
 *    command kept a folder) is left out with everything below it, and reported;
 * 2. the disk must have room for every file that is copied (its apparent size);
 * 3. every file and link is staged under a hidden, random name beside its target (a new
 *    folder is made whole under such a name) — any failure (a full disk) removes all of it
 *    again and nothing is applied;
 * 4. then, with SIGINT/SIGTERM/SIGHUP deferred, removals and renames (which take no room)
 *    put it in place, what makes git look somewhere new last, and folders get their modes.
 * A removal (a whiteout, the old contents of a folder made anew) spares the files and
 * links `spare` names, and the folders holding them: the command never saw them.
 */
export function applyLayer(layer: WriteLayer, entries: readonly LayerEntry[], spare: Spare = () => false): AppliedLayer {
  const root = layer.projectDir;
  const upper = path.join(layer.dir, 'upper');
  const suffix = randomBytes(6).toString('hex');
  const applied: AppliedLayer = { touched: [], subtrees: [], failed: [] };

  // 1. Plan.
  const planned: LayerEntry[] = [];
  /** What the folder held at each planned path (undefined: nothing). */
  const found = new Map<string, fs.Stats | undefined>();
  const left: string[] = [];
  for (const e of entries) {
    if (e.kind === 'other' || left.some((b) => isSlashPathInside(b, e.rel))) continue;
    try {
      const current = lstatAt(root, e.rel);
      if (e.kind === 'dir' && current?.isSymbolicLink()) throw new ThroughLinkError(e.rel, e.rel);
      if (e.kind === 'dir' && current && !current.isDirectory()) throw Object.assign(new Error('replaced while the command ran'), { code: 'replaced while the command ran' });
      planned.push(e);
      found.set(e.rel, current);
    } catch (err) {
      left.push(e.rel);
      applied.failed.push({ rel: e.rel, why: err instanceof ThroughLinkError ? 'goes through a link' : errnoOf(err) });
    }
  }
  const nothing = (rel: string, why: string): AppliedLayer => ({ touched: [], subtrees: [], failed: [...applied.failed, { rel, why: `${why}; ${NOTHING_APPLIED}` }] });
  // Nothing to stage or put in place (the usual command, which wrote nothing).
  if (planned.length === 0) return applied;

  // 2. Room.
  const needed = bytesNeeded(layer, planned);
  if (needed > 0) {
    const { bavail, bsize } = fs.statfsSync(root);
    if (needed + SPACE_RESERVE > bavail * bsize) return nothing('', `not enough free space (${Math.ceil(needed / 1024 / 1024)} MB needed)`);
  }

  // Staged and put in place with SIGINT/SIGTERM/SIGHUP deferred: an interrupt neither leaves
  // staged files behind nor half a layer applied.
  return withSignalsDeferred((): AppliedLayer => {
    // 3. Stage: nothing staged is where git (or anyone) looks. A folder the real folder lacks
    // is made under a hidden name beside where it goes, with everything below it inside under
    // its own names; a file or link in an existing folder goes beside its target, hidden.
    /** New folders' tops, and files and links in existing folders → their hidden names. */
    const tops = new Map<string, string>();
    const staged = new Map<string, string>();
    const physical = (rel: string): string => {
      for (let a = rel; a !== ''; a = parentOf(a)) {
        const name = tops.get(a);
        if (name !== undefined) return joinRel(parentOf(a), name) + rel.slice(a.length);
      }
      return rel;
    };
    let staging = '';
    try {
      for (const e of planned) {
        staging = e.rel;
        stageHook?.(e.rel);
        if (e.kind === 'whiteout') continue;
        const inNew = physical(e.rel) !== e.rel;
        if (e.kind === 'dir') {
          if (inNew) mkdirAt(root, physical(e.rel), 0o700, false);
          else if (found.get(e.rel) === undefined) {
            const name = stagedName(e.rel, suffix);
            mkdirAt(root, joinRel(parentOf(e.rel), name), 0o700, false);
            tops.set(e.rel, name);
          }
          continue;
        }
        const name = stagedName(e.rel, suffix);
        const at = inNew ? physical(e.rel) : joinRel(parentOf(e.rel), name);
        if (e.kind === 'file') placeFileAt(root, at, path.join(upper, e.rel), e.stat.mode & 0o7777, { atime: e.stat.atime, mtime: e.stat.mtime }, suffix);
        else replaceAt(root, at, 'l', fs.readlinkSync(path.join(upper, e.rel), { encoding: 'buffer' }), 0o777, false, suffix);
        if (!inNew) staged.set(e.rel, name);
      }
    } catch (err) {
      unstage(root, staged, tops);
      return nothing(staging, err instanceof ThroughLinkError ? 'goes through a link' : errnoOf(err));
    }

    // 4. Put in place: removals, then renames (neither takes room).
    const inLayer = new Set(planned.map((e) => e.rel));
    const hidden = new Set([...staged.values(), ...tops.values()]);
    const broken: string[] = [];
    const fail = (rel: string, err: unknown): void => {
      broken.push(rel);
      applied.failed.push({ rel, why: err instanceof ThroughLinkError ? 'goes through a link' : errnoOf(err) });
    };
    {
      const remove = (rel: string): boolean => removeSparing(root, rel, spare);
      for (const e of planned) {
        try {
          if (e.kind === 'whiteout') {
            remove(e.rel);
            applied.subtrees.push(e.rel);
          } else if (e.kind === 'dir' && e.opaque && !tops.has(e.rel) && physical(e.rel) === e.rel) {
            for (const name of readdirAt(root, e.rel)) if (!inLayer.has(`${e.rel}/${name}`) && !hidden.has(name)) remove(`${e.rel}/${name}`);
            applied.subtrees.push(e.rel);
          } else if (staged.has(e.rel) && found.get(e.rel)?.isDirectory() && !remove(e.rel)) {
            throw Object.assign(new Error('replaced while the command ran'), { code: 'replaced while the command ran' });
          }
        } catch (err) {
          fail(e.rel, err);
        }
      }
      // What could make git look somewhere new (a `.git`, HEAD, objects/, refs/, commondir,
      // gitdir) goes last: a repository is never completed before its contents are in place.
      const activating = activatingRels(planned);
      const moves = [...tops, ...staged].filter(([rel]) => !broken.some((b) => isSlashPathInside(b, rel)));
      moves.sort(([a], [b]) => Number(activating.has(a)) - Number(activating.has(b)));
      for (const [rel, name] of moves) {
        try {
          renameInParentAt(root, rel, name);
          tops.delete(rel);
          staged.delete(rel);
        } catch (err) {
          fail(rel, err);
        }
      }
      // Modes last, deepest first: a folder made read-only still took its files.
      for (const e of [...planned].reverse()) {
        if (e.kind !== 'dir' || broken.some((b) => isSlashPathInside(b, e.rel))) continue;
        try {
          mkdirAt(root, e.rel, e.stat.mode & 0o7777, false);
        } catch (err) {
          applied.failed.push({ rel: e.rel, why: errnoOf(err) });
        }
      }
    }
    for (const e of planned) if (!broken.some((b) => isSlashPathInside(b, e.rel))) applied.touched.push(e.rel);
    // What a failed rename left staged.
    unstage(root, staged, tops);
    return applied;
  });
}

/** The entries that are, or hold, a name that can make git look somewhere new. */
function activatingRels(entries: readonly LayerEntry[]): Set<string> {
  const out = new Set<string>();
  for (const e of entries) {
    const name = path.posix.basename(e.rel);
    // Names git acts on when they appear (a repository's place, its shape, its pointers); `.git` in any case.
    if (!GIT_ACTIVATING_NAMES.has(name) && name.toLowerCase() !== '.git') continue;
    for (let a = e.rel; a !== '' && !out.has(a); a = parentOf(a)) out.add(a);
  }
  return out;
}

function joinRel(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

/** Removes staged files and the hidden folders made for new ones, with what is in them. */
function unstage(root: string, staged: ReadonlyMap<string, string>, tops: ReadonlyMap<string, string>): void {
  for (const [rel, name] of [...staged, ...tops]) {
    try {
      removeTreeAt(root, joinRel(parentOf(rel), name));
    } catch {
      // Gone already.
    }
  }
}

/** Removes `rel` and everything below it except what `spare` names (and the folders holding that); true when all of it went. */
function removeSparing(root: string, rel: string, spare: Spare): boolean {
  const st = lstatAt(root, rel);
  if (st === undefined) return true;
  if (!st.isDirectory()) {
    if (spare(rel, st)) return false;
    unlinkAt(root, rel);
    return true;
  }
  let all = true;
  for (const name of readdirAt(root, rel)) all = removeSparing(root, `${rel}/${name}`, spare) && all;
  if (all) rmdirAt(root, rel);
  return all;
}
