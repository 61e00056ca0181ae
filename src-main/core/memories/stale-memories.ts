// Stale memories (SPEC §25 "Stale"): a memory that names something its project no longer has
// is marked with the missing name (`scripts/build.sh no longer exists`); the mark clears when
// the name comes back. Whoever opens a folder, or sees the agent change it, runs a pass with a
// fresh probe of the project.

import type { Backend } from '../backends/protocol';
import type { MemoryRecords } from './memory-records';
import type { MemoryScope } from './memory-types';
import { namedThings, thingLabel, type NamedThing } from './named-things';
import type { ProjectProbe } from './project-probe';

/** The stale reason of the first thing the project no longer has, or null. */
export async function missingName(things: readonly NamedThing[], probe: ProjectProbe): Promise<string | null> {
  let bases: Promise<string[][]> | undefined;
  for (const thing of things) {
    if (await isMissing(thing, probe, () => (bases ??= namedFolders(things, probe)))) return `${thingLabel(thing)} no longer exists`;
  }
  return null;
}

async function isMissing(thing: NamedThing, probe: ProjectProbe, bases: () => Promise<string[][]>): Promise<boolean> {
  switch (thing.kind) {
    case 'script':
      return (await probe.hasScript(thing.runner, thing.script)) === false;
    case 'branch':
      return (await probe.hasBranch(thing.name)) === false;
    case 'dependency':
      return (await probe.hasDependency(thing.name, thing.called)) === false;
    case 'path': {
      const segments = thing.path.split('/').filter(Boolean);
      const root = await probe.entries('');
      if (root === null) return false;
      // A bare `a/b` is a path only where the project has a folder `a`.
      if (thing.weak && !isFolder(root, segments[0]!)) return false;
      if (await present(segments, probe)) return false;
      // Named beside a folder it is relative to: "in packages/app, src/index.ts …".
      for (const base of await bases()) if (await present([...base, ...segments], probe)) return false;
      return !(await probe.ignored(thing.path, thing.path.endsWith('/')));
    }
  }
}

/** The folders the memory names that the project has. */
async function namedFolders(things: readonly NamedThing[], probe: ProjectProbe): Promise<string[][]> {
  const out: string[][] = [];
  for (const t of things) {
    if (t.kind !== 'path') continue;
    const segments = t.path.split('/').filter(Boolean);
    const parent = await probe.entries(segments.slice(0, -1).join('/'));
    if (parent !== null && isFolder(parent, segments[segments.length - 1]!)) out.push(segments);
  }
  return out;
}

function isFolder(entries: ReadonlyMap<string, boolean>, name: string): boolean {
  const found = entryName(entries, name);
  return found !== undefined && entries.get(found) === true;
}

/** The entry of that name: exact, else differing only in case (a case-insensitive disk, or how the memory spelled it). */
function entryName(entries: ReadonlyMap<string, boolean>, name: string): string | undefined {
  if (entries.has(name)) return name;
  const lower = name.toLowerCase();
  for (const e of entries.keys()) if (e.toLowerCase() === lower) return e;
  return undefined;
}

const JS = /\.(js|mjs|cjs|jsx)$/;

async function present(segments: readonly string[], probe: ProjectProbe): Promise<boolean> {
  let folder = '';
  for (let i = 0; i < segments.length; i++) {
    const entries = await probe.entries(folder);
    if (entries === null) return false;
    const name = entryName(entries, segments[i]!);
    if (name === undefined) return i === segments.length - 1 && sameModule(entries, segments[i]!);
    folder = folder === '' ? name : `${folder}/${name}`;
  }
  return true;
}

/** `src/util` for `src/util.ts`, `x.js` for `x.ts`: how code names a module. */
function sameModule(entries: ReadonlyMap<string, boolean>, name: string): boolean {
  const js = JS.exec(name);
  const stem = js ? name.slice(0, js.index) : name;
  if (!js && /\.[A-Za-z]\w*$/.test(name)) return false;
  const fits = js ? (e: string) => /^\.(ts|mts|cts|tsx)$/.test(e.slice(stem.length)) : (e: string) => e.slice(stem.length).startsWith('.');
  for (const e of entries.keys()) if (e.startsWith(stem) && fits(e)) return true;
  return false;
}

export interface RefreshStaleOptions {
  records: MemoryRecords;
  scope: MemoryScope;
  /** The scope's store: memories at `/x.md`. */
  store: Backend;
  /** A fresh probe of the scope's project, for this pass only. */
  probe: ProjectProbe;
}

/** Marks every memory of the store stale or not; returns how many were checked and how many are stale. */
export async function refreshStale(options: RefreshStaleOptions): Promise<{ checked: number; stale: number }> {
  const { records, scope, store, probe } = options;
  const listed = await store.glob('**/*', '/');
  if (listed.error !== undefined) return { checked: 0, stale: 0 };
  const before = records.staleIn(scope);
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const seen = new Set<string>();
  let checked = 0;
  let stale = 0;
  for (const file of listed.matches ?? []) {
    if (file.isDir === true) continue;
    const path = file.path.startsWith('/') ? file.path : `/${file.path}`;
    seen.add(path);
    const raw = await store.readRaw(path);
    if (raw.data === undefined) continue;
    checked++;
    const reason = await missingName(namedThings(decoder.decode(raw.data)), probe);
    if (reason !== null) stale++;
    if ((before.get(path) ?? null) !== reason) records.setStale(scope, path, reason);
  }
  // A memory that is gone keeps no mark.
  for (const path of before.keys()) if (!seen.has(path)) records.setStale(scope, path, null);
  return { checked, stale };
}
