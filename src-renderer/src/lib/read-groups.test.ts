import { describe, expect, it } from 'vitest';
import { MIN_GROUP, readGroupRows, readGroupSummary } from './read-groups';
import type { ConvItem, ToolItem } from './thread-reducer';

let n = 0;
const tool = (name: string, extra: Partial<ToolItem> = {}): ToolItem => ({ kind: 'tool', key: `k${n++}`, id: `c${n}`, name, args: {}, output: 'x', ...extra });
const text = (t: string): ConvItem => ({ kind: 'assistant', key: `k${n++}`, text: t }) as ConvItem;
const shape = (items: ConvItem[]) => readGroupRows(items).map((r) => (r.kind === 'reads' ? r.items.map((i) => i.name) : r.item.kind === 'tool' ? r.item.name : r.item.kind));

describe('read groups', () => {
  it('fold a run of reads, searches and listings into one row', () => {
    const items = [tool('read_file'), tool('grep'), tool('glob'), tool('ls'), tool('read_file')];
    expect(shape(items)).toEqual([['read_file', 'grep', 'glob', 'ls', 'read_file']]);
    expect(readGroupSummary(items.filter((i): i is ToolItem => i.kind === 'tool'))).toBe('Read 2 files, searched 2 times, listed 1 folder');
  });

  it('are never formed across a write, an approval, a message or another tool, and short runs stay cards', () => {
    expect(MIN_GROUP).toBe(3);
    expect(shape([tool('read_file'), tool('grep')])).toEqual(['read_file', 'grep']);
    expect(shape([tool('read_file'), tool('grep'), tool('write_file'), tool('read_file'), tool('grep'), tool('ls')])).toEqual(['read_file', 'grep', 'write_file', ['read_file', 'grep', 'ls']]);
    expect(shape([tool('read_file'), tool('grep'), tool('read_file', { approval: 'pending' }), tool('grep')])).toEqual(['read_file', 'grep', 'read_file', 'grep']);
    expect(shape([tool('read_file'), text('Now searching.'), tool('grep'), tool('glob')])).toEqual(['read_file', 'assistant', 'grep', 'glob']);
    expect(shape([tool('read_file'), tool('execute'), tool('grep'), tool('glob')])).toEqual(['read_file', 'execute', 'grep', 'glob']);
  });

  it('keep a failed call inside (the row shows the failure)', () => {
    expect(shape([tool('read_file'), tool('read_file', { isError: true, output: "Error: File '/x' not found" }), tool('grep')])).toEqual([['read_file', 'read_file', 'grep']]);
  });

  it('say one of each in the singular', () => {
    expect(readGroupSummary([tool('grep'), tool('read_file'), tool('read_file')])).toBe('Read 2 files, searched 1 time');
    expect(readGroupSummary([tool('ls'), tool('ls'), tool('ls')])).toBe('Listed 3 folders');
  });
});
