// A checked layer's writes are reviewed before it is applied (SPEC §23 (5)): the review is
// handed down by whoever decides the run's calls (core/sandbox knows nothing of reviewers),
// is told each changed entry, and names those it refuses; they are left out (with what lies
// below them) and named in the blocked line, as a failed check is. A review that fails
// refuses every entry it was told.

import fs from 'node:fs';
import path from 'node:path';
import { linksInto } from '../fs/links-into';
import { isPathInside, isSlashPathInside } from '../fs/path-inside';
import { realPathOf } from '../fs/real-path';
import type { BlockedItem } from './blocked';
import type { LayerVerdict } from './layer-check';
import type { LayerWrite, ReviewLayer } from './types';
import type { LayerEntry, WriteLayer } from './write-layer';

/** The verdict without the entries the review refused, and those named. */
export async function reviewedVerdict(layer: WriteLayer, verdict: LayerVerdict, review: ReviewLayer): Promise<LayerVerdict> {
  const root = layer.projectDir;
  const upper = path.join(layer.dir, 'upper');
  const entries = verdict.apply.filter((e) => e.kind !== 'dir' || e.opaque === true);
  // Found once, when first asked: the links of the folder that lead to what the layer writes.
  let aliases: Map<string, string[]> | undefined;
  const names = (rel: string): string[] => (aliases ??= linksInto(root, entries.map((e) => e.rel))).get(rel)?.map((name) => `/${name}`) ?? [];
  const writes: LayerWrite[] = entries.map((e) => ({ path: `/${e.rel}`, contents: () => ({ before: folderText(root, e.rel), after: layerText(root, upper, e) }), names: () => names(e.rel) }));
  if (writes.length === 0) return verdict;
  let refused: ReadonlyMap<string, string>;
  try {
    refused = await review(writes);
  } catch (err) {
    refused = new Map(writes.map((w) => [w.path, `it could not be reviewed (${err instanceof Error ? err.message : String(err)}); not applied`]));
  }
  if (refused.size === 0) return verdict;
  const rels = [...refused.keys()].map((p) => p.slice(1));
  const items: BlockedItem[] = [...refused].map(([virtual, why]) => ({ kind: 'write', path: path.join(root, virtual.slice(1)), why }));
  return { apply: verdict.apply.filter((e) => !rels.some((rel) => isSlashPathInside(rel, e.rel))), items: [...verdict.items, ...items] };
}

/** The folder's file as it is now (null: absent, not a file, or not inside the folder through links). */
function folderText(root: string, rel: string): string | null {
  const file = path.join(root, rel);
  if (!isPathInside(root, realPathOf(file))) return null;
  return readText(file);
}

/**
 * What the layer leaves there: a file's text, null for a removal; a link, with the text it
 * leads to (the layer's, else the folder's): a link at a name is a write of its target's content.
 */
function layerText(root: string, upper: string, entry: LayerEntry): string | null {
  const file = path.join(upper, entry.rel);
  if (entry.kind !== 'link') return entry.kind === 'file' ? readText(file) : null;
  const target = path.resolve(path.dirname(path.join(root, entry.rel)), fs.readlinkSync(file));
  const inside = isPathInside(root, target) ? path.relative(root, target) : undefined;
  const text = inside === undefined ? null : (readText(path.join(upper, inside)) ?? folderText(root, inside));
  return `(a symbolic link to ${fs.readlinkSync(file)})${text !== null ? `\n${text}` : ''}`;
}

/** A plain file's text (not through a link), or null. */
function readText(file: string): string | null {
  try {
    return fs.lstatSync(file).isFile() ? fs.readFileSync(file, 'utf8') : null;
  } catch {
    return null;
  }
}
