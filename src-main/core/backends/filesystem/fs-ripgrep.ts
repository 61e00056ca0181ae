// Drives ripgrep for grep (literal, line numbers) and for file listing, with the same
// filtering as the Node walker: only the folder's .gitignore files, dot files seen, `.git`
// skipped, symlinks not followed. Binary detection is left to the caller (`-a`), because
// ripgrep's own stops at the first NUL anywhere in a file, which the walker cannot mirror.

import { spawnPipe } from '../../process/spawn';
import type { SearchDeadline } from './fs-deadline';

export interface RipgrepTarget {
  rg: string;
  /** Real folder to search. */
  dir: string;
  /** Let ripgrep read .gitignore files of dir's parents (only when the caller vouched for them). */
  parents: boolean;
  /**
   * dir is inside a git repository. ripgrep then finds repositories itself, and a nested
   * repository restarts the rules as in the walker. Outside any repository it must be told
   * to read .gitignore files (--no-require-git), and since ripgrep 14 that mode ignores
   * repository boundaries: the caller checks there are none (ripgrepFindsRepository).
   */
  inRepository: boolean;
}

export type RipgrepOutcome =
  /** completed: ripgrep finished (false when the deadline killed it). */
  | { ok: true; completed: boolean }
  /** ripgrep could not run or rejected its arguments; the caller should fall back. */
  | { ok: false };

function ignoreFlags(target: RipgrepTarget): string[] {
  return [
    '--no-config', '--no-messages', '--hidden', ...(target.inRepository ? [] : ['--no-require-git']), '--no-ignore-global',
    '--no-ignore-exclude', '--no-ignore-dot', ...(target.parents ? [] : ['--no-ignore-parent']),
  ];
}

function filterFlags(target: RipgrepTarget): string[] {
  return [...ignoreFlags(target), '-g', '!.git'];
}

/**
 * Whether the search would reach a nested repository (a `.git` folder with a HEAD, or a
 * `.git` file of a worktree or submodule) below the folder: one listing of only those
 * entries, without entering `.git` subfolders. `found` is null when the deadline cut it short.
 */
export async function ripgrepFindsRepository(target: RipgrepTarget, deadline: SearchDeadline): Promise<{ ok: false } | { ok: true; found: boolean | null }> {
  const args = [...ignoreFlags(target), '--files', '--null', '-g', '**/.git', '-g', '**/.git/HEAD', '-g', '!**/.git/*/', '--', target.dir];
  let found = false;
  const parser = new NulListParser();
  const outcome = await run(target.rg, args, deadline, async (chunk) => {
    if (parser.push(chunk).length > 0) found = true;
  });
  if (!outcome.ok) return outcome;
  return { ok: true, found: outcome.completed || found ? found : null };
}

export interface RipgrepHit {
  real: string;
  line: number;
  /** The line's bytes without '\n'. */
  bytes: Buffer;
}

/**
 * Literal search with at most `maxPerFile` lines per file, files over `maxFileBytes`
 * skipped. `onHits` receives each batch of parsed hits; ripgrep waits while it runs.
 */
export function ripgrepSearch(
  target: RipgrepTarget,
  pattern: string,
  maxPerFile: number,
  maxFileBytes: number,
  deadline: SearchDeadline,
  onHits: (hits: RipgrepHit[]) => Promise<void>,
): Promise<RipgrepOutcome> {
  const args = [
    ...filterFlags(target), '-F', '-a', '-E', 'none', '-n', '-H', '--null', '--no-heading', '--color', 'never',
    '--max-filesize', String(Math.floor(maxFileBytes)), '-m', String(Math.max(1, maxPerFile)), '--', pattern, target.dir,
  ];
  const parser = new HitParser();
  return run(target.rg, args, deadline, (chunk) => onHits(parser.push(chunk)));
}

/** Every file ripgrep would search below the folder (real paths), handed over as they are printed. */
export function ripgrepFiles(target: RipgrepTarget, deadline: SearchDeadline, onFiles: (reals: string[]) => void): Promise<RipgrepOutcome> {
  const args = [...filterFlags(target), '--files', '--null', '--', target.dir];
  const parser = new NulListParser();
  return run(target.rg, args, deadline, async (chunk) => onFiles(parser.push(chunk)));
}

async function run(rg: string, args: string[], deadline: SearchDeadline, onChunk: (chunk: Buffer) => Promise<void>): Promise<RipgrepOutcome> {
  let child;
  try {
    child = spawnPipe({ role: 'search', file: rg, args, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return { ok: false };
  }
  const { stdout, stderr: errStream } = child;
  if (!stdout || !errStream) return { ok: false };
  let spawnFailed = false;
  let killed = false;
  let stderr = '';
  child.on('error', () => {
    spawnFailed = true;
  });
  errStream.on('data', (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const unsubscribe = deadline.onStop(() => {
    killed = true;
    child.kill('SIGKILL');
  });
  try {
    for await (const chunk of stdout) {
      if (killed) break;
      await onChunk(chunk as Buffer);
    }
  } catch (err) {
    // A kill mid-read may error the stream; anything else is a real failure.
    if (!killed) {
      child.kill('SIGKILL');
      await exited;
      throw err;
    }
  } finally {
    unsubscribe();
  }
  if (killed) child.kill('SIGKILL');
  const code = await exited;
  if (spawnFailed) return { ok: false };
  if (killed) return { ok: true, completed: false };
  // 0: matches, 1: none, 2: some files could not be read (messages are off), unless it
  // printed a usage error, i.e. this ripgrep does not take our flags.
  if (code === 2 && stderr.trim() !== '') return { ok: false };
  return { ok: true, completed: code === 0 || code === 1 || code === 2 };
}

/** The bytes of a stream not yet parsed: a record's start waits for the chunk that ends it. */
class PendingBytes {
  private parts: Buffer[] = [];

  /** What is held with `chunk` once it holds `end` (the parts are then let go); else undefined, and the chunk is held. */
  upTo(chunk: Buffer, end: number): Buffer | undefined {
    if (chunk.indexOf(end) < 0) {
      this.parts.push(chunk);
      return undefined;
    }
    const buf = this.parts.length > 0 ? Buffer.concat([...this.parts, chunk]) : chunk;
    this.parts = [];
    return buf;
  }

  /** Holds the rest of a parsed buffer for the next chunk. */
  keep(rest: Buffer): void {
    if (rest.length > 0) this.parts.push(rest);
  }
}

/** Parses `path NUL line ':' text '\n'` records; text may hold NUL bytes (with -a), paths may hold '\n'. */
export class HitParser {
  private readonly pending = new PendingBytes();

  push(chunk: Buffer): RipgrepHit[] {
    const buf = this.pending.upTo(chunk, 0x0a);
    if (buf === undefined) return [];
    const hits: RipgrepHit[] = [];
    let pos = 0;
    for (;;) {
      const nul = buf.indexOf(0, pos);
      if (nul < 0) break;
      let i = nul + 1;
      let line = 0;
      while (i < buf.length && buf[i]! >= 0x30 && buf[i]! <= 0x39) line = line * 10 + (buf[i++]! - 0x30);
      if (i >= buf.length) break;
      if (buf[i] !== 0x3a) throw new Error('unexpected ripgrep output');
      const nl = buf.indexOf(0x0a, i + 1);
      if (nl < 0) break;
      hits.push({ real: buf.toString('utf8', pos, nul), line, bytes: Buffer.from(buf.subarray(i + 1, nl)) });
      pos = nl + 1;
    }
    this.pending.keep(buf.subarray(pos));
    return hits;
  }
}

class NulListParser {
  private readonly pending = new PendingBytes();

  push(chunk: Buffer): string[] {
    const buf = this.pending.upTo(chunk, 0);
    if (buf === undefined) return [];
    const out: string[] = [];
    let pos = 0;
    for (let nul = buf.indexOf(0, pos); nul >= 0; nul = buf.indexOf(0, pos)) {
      out.push(buf.toString('utf8', pos, nul));
      pos = nul + 1;
    }
    this.pending.keep(buf.subarray(pos));
    return out;
  }
}
