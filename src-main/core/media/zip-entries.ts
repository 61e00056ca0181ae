// The entries of a zip that a reader wants, unpacked within one byte budget for all of them
// (issue 37): sizes come from the central directory, each entry is inflated a piece at a
// time (inflate-budget.ts), and an archive whose wanted entries would unpack past the
// budget is refused, whatever its headers claim.

import { strFromU8 } from 'fflate';
import { ByteBudget, inflateWithin } from './inflate-budget';

export type ZipEntries = { entries: Map<string, Uint8Array> } | { error: string };

const END_OF_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000;

/** The wanted entries' bytes, or why they cannot be read (`over budget` names the budget). */
export function readZipEntries(bytes: Uint8Array, wanted: (name: string) => boolean, budgetBytes: number): ZipEntries {
  const end = findEndOfDirectory(bytes);
  if (end < 0) return { error: 'no zip directory' };
  const count = u16(bytes, end + 10);
  let at = u32(bytes, end + 16);
  const budget = new ByteBudget(budgetBytes);
  const entries = new Map<string, Uint8Array>();
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || u32(bytes, at) !== CENTRAL_HEADER) return { error: 'a damaged zip directory' };
    const method = u16(bytes, at + 10);
    const compressed = u32(bytes, at + 20);
    const nameLength = u16(bytes, at + 28);
    const next = at + 46 + nameLength + u16(bytes, at + 30) + u16(bytes, at + 32);
    const name = strFromU8(bytes.subarray(at + 46, at + 46 + nameLength));
    const local = u32(bytes, at + 42);
    at = next;
    if (!wanted(name) || entries.has(name)) continue;
    if (local + 30 > bytes.length || u32(bytes, local) !== LOCAL_HEADER) return { error: `a damaged zip entry (${name})` };
    const start = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28);
    const data = bytes.subarray(start, Math.min(bytes.length, start + compressed));
    if (method === 0) {
      if (!budget.spend(data.length)) return overBudget(budgetBytes);
      entries.set(name, data);
      continue;
    }
    if (method !== 8) return { error: `a zip entry compressed with method ${method} (${name})` };
    const inflated = inflateWithin(data, budget, { zlib: false, keep: true });
    if (inflated.status === 'over-budget') return overBudget(budgetBytes);
    if (inflated.status === 'invalid') return { error: `a damaged zip entry (${name}: ${inflated.message})` };
    entries.set(name, inflated.bytes);
  }
  return { entries };
}

function overBudget(budgetBytes: number): { error: string } {
  return { error: `its text parts unpack to more than ${budgetBytes / (1024 * 1024)} MB` };
}

/** The end-of-central-directory record: in the last 22 bytes, or before a comment of at most 64 KB. */
function findEndOfDirectory(bytes: Uint8Array): number {
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(bytes, at) === END_OF_DIRECTORY) return at;
  }
  return -1;
}
