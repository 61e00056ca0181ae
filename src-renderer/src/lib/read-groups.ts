// Consecutive reads, searches and listings fold into one summary row (`Read 5 files,
// searched 5 times`), as Claude Code and Cursor show them: they are many, alike and rarely
// read one by one. A group holds only calls of those tools that asked nothing (an approval,
// a write, an error notice, a message or any other call ends it), and only a run long
// enough to be worth folding.

import type { ConvItem, ToolItem } from './thread-reducer';
import { ONE_LINE_TOOLS } from './tool-summary';

/** Fewer calls in a row than this stay cards of their own. */
export const MIN_GROUP = 3;

export type ConvRow = { kind: 'item'; item: ConvItem } | { kind: 'reads'; key: string; items: ToolItem[] };

function groupable(item: ConvItem): item is ToolItem {
  return item.kind === 'tool' && ONE_LINE_TOOLS.has(item.name) && item.approval === undefined && item.parseError === undefined;
}

/** `items` as rows: runs of at least MIN_GROUP read-only calls become one group each. */
export function readGroupRows(items: readonly ConvItem[]): ConvRow[] {
  const rows: ConvRow[] = [];
  let run: ToolItem[] = [];
  const flush = (): void => {
    if (run.length >= MIN_GROUP) rows.push({ kind: 'reads', key: `reads-${run[0]!.key}`, items: run });
    else for (const item of run) rows.push({ kind: 'item', item });
    run = [];
  };
  for (const item of items) {
    if (groupable(item)) run.push(item);
    else {
      flush();
      rows.push({ kind: 'item', item });
    }
  }
  flush();
  return rows;
}

function times(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What a group did, e.g. `Read 5 files, searched 5 times, listed 1 folder`. */
export function readGroupSummary(items: readonly ToolItem[]): string {
  const count = (names: string[]): number => items.filter((i) => names.includes(i.name)).length;
  const reads = count(['read_file']);
  const searches = count(['grep', 'glob']);
  const listings = count(['ls']);
  const parts = [
    reads > 0 ? `read ${times(reads, 'file', 'files')}` : '',
    searches > 0 ? `searched ${times(searches, 'time', 'times')}` : '',
    listings > 0 ? `listed ${times(listings, 'folder', 'folders')}` : '',
  ].filter(Boolean);
  const text = parts.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
