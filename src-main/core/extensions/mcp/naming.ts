// How MCP tools and prompts are named to the model (SPEC §10): `mcp__<server>__<name>`,
// characters outside [A-Za-z0-9_-] as `_`, at most 64 characters.
//
// Rules match these names by their `__`-separated parts (`mcp__notes__*` is every tool of the
// server `notes` and of no other), so the server part must name one server and nothing else:
// - it never holds `__` and never starts or ends with `_`, so the first `__` after `mcp__`
//   ends it (parseMcpName): a server named `notes__x` or `notes_` cannot pass for `notes`;
// - it is at most MAX_SERVER_PART characters, so cutting a long name never cuts into it;
// - servers whose names clean to the same part (`a.b`, `a_b`) all get a part of their own,
//   the cleaned name and a hash of the exact name: none of them keeps the plain part, so a
//   rule the person wrote for one never covers another, whichever loaded first;
// - a server whose part is still another's (a name chosen to equal such a hashed part) is
//   refused: its tools never run under another server's name.
import { createHash } from 'node:crypto';

/** What every MCP tool's name starts with (SPEC §10: `mcp__<server>__<tool>`). */
export const MCP_PREFIX = 'mcp__';
/** What ends the server's part of an MCP tool's name (a server part never holds it: see plainPart). */
export const MCP_SEPARATOR = '__';

const MAX_NAME = 64;
/** Leaves room in MAX_NAME for `mcp__`, `__` and a tool name with its hash. */
export const MAX_SERVER_PART = 32;
const HASH_CHARS = 8;

const clean = (part: string): string => part.replace(/[^A-Za-z0-9_-]/g, '_');
const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, HASH_CHARS);

/** The cleaned name, when it can stand as a server part as it is. */
function plainPart(server: string): string | null {
  const part = clean(server);
  const wellFormed = part !== '' && part.length <= MAX_SERVER_PART && !part.includes(MCP_SEPARATOR) && !part.startsWith('_') && !part.endsWith('_');
  return wellFormed ? part : null;
}

/** A part of the cleaned name (runs of `_` as one, cut) and a hash of the exact name. */
function hashedPart(server: string): string {
  const base = clean(server)
    .replace(/_+/g, '_')
    .slice(0, MAX_SERVER_PART - HASH_CHARS - 1)
    .replace(/^_+|_+$/g, '');
  return `${base === '' ? 'server' : base}_${hashOf(server)}`;
}

/**
 * The server part of each configured server's tool names, by server name; null for a server
 * whose part would still be another's (it is refused). Decided over every configured server
 * (trusted or not, enabled or not), so a part never depends on which server started first.
 */
export function serverParts(servers: readonly string[]): Map<string, string | null> {
  const names = [...new Set(servers)];
  const plain = new Map(names.map((name) => [name, plainPart(name)]));
  const plainCount = countBy(names.map((name) => plain.get(name)!));
  const parts = names.map((name) => {
    const part = plain.get(name)!;
    return part !== null && plainCount.get(part) === 1 ? part : hashedPart(name);
  });
  const count = countBy(parts);
  return new Map(names.map((name, i) => [name, count.get(parts[i]!) === 1 ? parts[i]! : null]));
}

function countBy(values: readonly (string | null)[]): Map<string | null, number> {
  const counts = new Map<string | null, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/**
 * The qualified name of a tool (or prompt) of the server whose part (serverParts) is
 * `serverPart`. A name that must be cut, or that collides with one already `taken` (`a.b` and
 * `a_b` both clean to `a_b`), ends in `_` and a hash of the exact names: unique and the same on
 * every start. Only the tool's part is ever cut.
 */
export function qualifiedName(serverPart: string, name: string, taken: ReadonlySet<string> = new Set()): string {
  const prefix = `${MCP_PREFIX}${clean(serverPart)}${MCP_SEPARATOR}`;
  const plain = `${prefix}${clean(name)}`;
  if (plain.length <= MAX_NAME && !taken.has(plain)) return plain;
  const suffix = `_${hashOf(`${serverPart}\0${name}`)}`;
  return `${plain.slice(0, Math.max(prefix.length + 1, MAX_NAME - suffix.length))}${suffix}`;
}

/** Qualified names for a server's list, in order (collisions resolved as in qualifiedName). */
export function qualifyAll(serverPart: string, names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const q = qualifiedName(serverPart, name, taken);
    taken.add(q);
    return q;
  });
}
