// The project folder as it would be once a command's write layer were applied, read
// without applying it: the git surface is checked on this view (layer-check.ts) so that
// nothing the layer would make git run is ever in the real folder, not even for a moment.
// A path the layer holds is read from its upper folder; one a whiteout, or a folder made
// anew (opaque) or replaced by a file or link, hides is missing; everything else is the
// real folder's. Links are resolved as they would be in that folder, the layer's own too.

import fs from 'node:fs';
import path from 'node:path';
import type { NameEntry, SurfaceFs } from '../git/surface';
import { isPathInside } from '../fs/path-inside';
import { realPathOf } from '../fs/real-path';
import type { LayerEntry } from './write-layer';
import { parentOf } from '../fs/no-follow';

const MAX_LINKS = 40;

function enoent(p: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, '${p}'`), { code: 'ENOENT' });
}

/** `entries`: the layer's entries to be applied (parents first); `upper`: the folder holding their content. */
export function layerView(root: string, upper: string, entries: readonly LayerEntry[]): SurfaceFs {
  const byRel = new Map(entries.map((e) => [e.rel, e]));
  const children = new Map<string, LayerEntry[]>();
  /** Folders whose listing or place the layer changes: every folder above an entry, and the entry itself. */
  const touched = new Set<string>(['']);
  for (const e of entries) {
    const parent = parentOf(e.rel);
    const siblings = children.get(parent);
    if (siblings) siblings.push(e);
    else children.set(parent, [e]);
    for (let a = e.rel; a !== ''; a = parentOf(a)) touched.add(a);
  }

  const relOf = (abs: string): string | undefined => (isPathInside(root, abs) ? path.relative(root, abs).split(path.sep).join('/') : undefined);

  /** Where `rel` is read from. */
  const source = (rel: string): 'upper' | 'real' | 'none' => {
    const e = byRel.get(rel);
    if (e) return e.kind === 'whiteout' ? 'none' : 'upper';
    for (let a = parentOf(rel); a !== ''; a = parentOf(a)) {
      const above = byRel.get(a);
      if (above && (above.kind !== 'dir' || above.opaque)) return 'none';
    }
    return 'real';
  };

  /** lstat of `abs`, whose parent folders hold no link. */
  const lstatDirect = (abs: string): fs.Stats | undefined => {
    const rel = relOf(abs);
    try {
      if (rel === undefined || rel === '') return fs.lstatSync(abs);
      const from = source(rel);
      if (from === 'none') return undefined;
      return fs.lstatSync(from === 'upper' ? path.join(upper, rel) : abs);
    } catch {
      return undefined;
    }
  };

  const readlinkDirect = (abs: string): string => {
    const rel = relOf(abs);
    if (rel === undefined || rel === '' || source(rel) === 'real') return fs.readlinkSync(abs);
    if (source(rel) === 'none') throw enoent(abs);
    return fs.readlinkSync(path.join(upper, rel));
  };

  /** The path with every link resolved, the layer's links as the real folder's; a missing tail kept. */
  const realpath = (p: string): string => {
    const abs = path.resolve(p);
    if (relOf(abs) === undefined) return realPathOf(abs);
    let done = root;
    let rest = path.relative(root, abs).split(path.sep).filter(Boolean);
    for (let hops = 0; rest.length > 0; ) {
      const name = rest.shift()!;
      const next = path.join(done, name);
      const st = lstatDirect(next);
      if (!st?.isSymbolicLink()) {
        done = next;
        continue;
      }
      if (++hops > MAX_LINKS) return path.join(next, ...rest);
      const target = path.resolve(done, readlinkDirect(next));
      // Out of the folder: the real file system answers from there.
      if (relOf(target) === undefined) return realPathOf(path.join(target, ...rest));
      rest = [...path.relative(root, target).split(path.sep).filter(Boolean), ...rest];
      done = root;
    }
    return done;
  };

  /** The path with its parent folders resolved: what an operation on it acts on. */
  const placed = (p: string): string => {
    const abs = path.resolve(p);
    return abs === root ? abs : path.join(realpath(path.dirname(abs)), path.basename(abs));
  };

  const readAt = (abs: string): string => {
    const rel = relOf(abs);
    if (rel === undefined || rel === '') return abs;
    const from = source(rel);
    if (from === 'none') throw enoent(abs);
    return from === 'upper' ? path.join(upper, rel) : abs;
  };

  const asEntry = (name: string, st: { isDirectory(): boolean; isFile(): boolean }): NameEntry => ({
    name,
    isDirectory: () => st.isDirectory(),
    isFile: () => st.isFile(),
  });

  return {
    async lstat(p) {
      const st = lstatDirect(placed(p));
      if (!st) throw enoent(p);
      return st;
    },
    async readFile(p) {
      return fs.readFileSync(readAt(realpath(p)));
    },
    async readlink(p) {
      return readlinkDirect(placed(p));
    },
    async readdir(p) {
      const abs = realpath(p);
      const rel = relOf(abs);
      if (rel === undefined) return fs.readdirSync(abs, { withFileTypes: true });
      const from = rel === '' ? 'real' : source(rel);
      if (from === 'none') throw enoent(p);
      const entry = byRel.get(rel);
      if (from === 'upper' && entry?.kind !== 'dir') throw Object.assign(new Error(`ENOTDIR: ${p}`), { code: 'ENOTDIR' });
      const names = new Map<string, NameEntry>();
      if (!entry?.opaque) {
        let real: fs.Dirent[] = [];
        try {
          real = fs.readdirSync(abs, { withFileTypes: true });
        } catch {
          // A folder the layer made: nothing of it is real.
        }
        for (const d of real) names.set(d.name, d);
      }
      for (const child of children.get(rel) ?? []) {
        const name = child.rel.slice(child.rel.lastIndexOf('/') + 1);
        if (child.kind === 'whiteout') names.delete(name);
        else names.set(name, asEntry(name, child.stat));
      }
      return [...names.values()];
    },
    realpath,
    asReal(dir) {
      const rel = relOf(dir);
      return rel === undefined || (!touched.has(rel) && source(rel) === 'real');
    },
  };
}
