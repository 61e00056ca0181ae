// How MCP tools and prompts are named to the model (SPEC §10): `mcp__<server>__<name>`,
// characters outside [A-Za-z0-9_-] as `_`, at most 64 characters.
import { createHash } from 'node:crypto';
import { MCP_PREFIX } from '../../agent/permissions/tool-targets';

const MAX_NAME = 64;
const HASH_CHARS = 8;

const clean = (part: string): string => part.replace(/[^A-Za-z0-9_-]/g, '_');
const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, HASH_CHARS);

/**
 * The qualified name of one server's tool (or prompt). A name that must be cut, or that
 * collides with one already `taken` (`a.b` and `a_b` both clean to `a_b`), ends in `_` and
 * a hash of the exact server and tool names: unique and the same on every start.
 */
export function qualifiedName(server: string, name: string, taken: ReadonlySet<string> = new Set()): string {
  const plain = `${MCP_PREFIX}${clean(server)}__${clean(name)}`;
  if (plain.length <= MAX_NAME && !taken.has(plain)) return plain;
  const suffix = `_${hashOf(`${server}\0${name}`)}`;
  return `${plain.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

/** Qualified names for a server's list, in order (collisions resolved as in qualifiedName). */
export function qualifyAll(server: string, names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const q = qualifiedName(server, name, taken);
    taken.add(q);
    return q;
  });
}
