// The one way a configuration file is read (settings, keys, .mcp.json, Claude settings,
// hooks, plugin manifests, skills and definitions, package runners' ini files): opened
// non-blocking, then read only when what was opened is a regular file of sane size. A
// cloned folder's `.mcp.json` may be a FIFO, a link to one, or to /dev/zero: the reader
// refuses it at once instead of hanging or filling memory. Links are followed (a person's
// dotfiles are often links), but what they reach must be a regular file.
import { closeSync, constants, fstatSync, openSync, readFileSync, type BigIntStats } from 'node:fs';

/** Bigger than any hand-written configuration: not read. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export type ConfigFileRead =
  | { ok: true; bytes: Buffer; stat: BigIntStats }
  | { ok: false; missing: true; code: 'ENOENT'; message: string }
  | { ok: false; missing: false; code?: string; message: string };

/** The file's bytes and what fstat said of the opened file, or why not (`missing` when it does not exist). */
export function readConfigFile(file: string, maxBytes = MAX_CONFIG_BYTES): ConfigFileRead {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile()) return { ok: false, missing: false, code: 'ENOTREG', message: 'is not a regular file' };
    if (stat.size > BigInt(maxBytes)) return { ok: false, missing: false, code: 'EFBIG', message: `is too large (${stat.size} bytes; at most ${maxBytes})` };
    return { ok: true, bytes: readFileSync(fd), stat };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true, code, message: 'no such file' };
    return { ok: false, missing: false, ...(code ? { code } : {}), message: `cannot be read (${code ?? (err instanceof Error ? err.message : String(err))})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** readConfigFile as text; throws an Error naming the file when it cannot be read (missing included). */
export function readConfigText(file: string, maxBytes = MAX_CONFIG_BYTES): string {
  const read = readConfigFile(file, maxBytes);
  if (!read.ok) throw Object.assign(new Error(`${file} ${read.message}`), { code: read.code });
  return read.bytes.toString('utf8');
}
