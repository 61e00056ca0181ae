// The script backend's replies (script-backend.ts, SPEC §13, §18): the mark every script prints
// first, the status line and payload of a reply, stat words, NUL-separated fields and framed
// bytes, for the scripts of both kinds of place. And the POSIX scripts of a `bytes` place (an SSH
// folder) that only look: the probe (GNU tools, python3 for descriptor-ops.ts, the root's real
// path, once per backend), where a link leads (LINK, also run at a `files` place after its own
// prelude). Every script takes its inputs as positional arguments (always shQuote'd by the
// caller) or on stdin, never spliced into its text.

import { isoTime } from '../filesystem/fs-file-infos';

/**
 * Positional parameter 1 is the remote root (real path); the body sees its own arguments from
 * $1. FRAMED (for `sh -c`, checkpoints' walk): each file as `path\0size\0` and its bytes.
 */
export const PRELUDE = String.raw`
export LC_ALL=C
ROOT=$1; shift
FRAMED='for f do s=$(wc -c < "$f" 2>/dev/null) || s=-; printf "%s\0%s\0" "$f" "$s"; [ "$s" = - ] || { cat -- "$f" 2>/dev/null; cat /dev/zero; } | head -c "$s"; done'
`;

/**
 * Sets `p` to the remote's python3 that opens files relative to a folder (empty when there is
 * none): the system's before one on the PATH (a version manager's shim costs a shell per call).
 */
export const FIND_PYTHON = String.raw`
p=
for c in /usr/bin/python3 /usr/local/bin/python3 /bin/python3 "$(command -v python3 2>/dev/null)"; do
  [ -n "$c" ] && [ -x "$c" ] && "$c" -I -S -c 'import os, sys; sys.exit(0 if os.open in os.supports_dir_fd else 1)' >/dev/null 2>&1 && { p=$c; break; }
done
`;

/**
 * Checks the tools and resolves the root: `stat-flavour\0find-and-realpath\0realroot\0python3\0`.
 */
export const PROBE = String.raw`
r=$(realpath -e -- "$1" 2>/dev/null && printf x) && r=${'$'}{r%??} || r=
if stat -c %s / >/dev/null 2>&1; then s=gnu; elif stat -f %z / >/dev/null 2>&1; then s=bsd; else s=none; fi
if find / -maxdepth 0 -printf '' >/dev/null 2>&1 && realpath -e / >/dev/null 2>&1; then f=gnu; else f=none; fi
${FIND_PYTHON}printf '%s\0%s\0%s\0%s\0' "$s" "$f" "$r" "$p"
`;


/** $1 rel: `ok` + where the path leads with every link followed, existing or not (realpath -m). */
export const LINK = String.raw`
if [ -z "$1" ]; then c=$ROOT; else c=${'$'}{ROOT%/}/$1; fi
r=$(realpath -m -- "$c" 2>/dev/null && printf x) || { echo failed; exit 0; }
echo ok; printf '%s' "${'$'}{r%??}"
`;









export interface Reply {
  /** The status word and its arguments (the first line, split on spaces). */
  status: string;
  args: string[];
  /** Everything after the first line. */
  payload: Buffer;
}

/**
 * Printed first by every script: a login shell's start-up files (a chatty ~/.bashrc) may
 * write before it, and that output is skipped.
 */
export const REPLY_MARK = '\u0001deepdesk\n';
const MARK_BYTES = Buffer.from(REPLY_MARK);

/** The reply after REPLY_MARK (empty when the mark never came). */
export function afterMark(stdout: Buffer): Buffer {
  const at = stdout.indexOf(MARK_BYTES);
  return at < 0 ? Buffer.alloc(0) : stdout.subarray(at + MARK_BYTES.length);
}

export function parseReply(output: Buffer): Reply {
  const stdout = afterMark(output);
  const nl = stdout.indexOf(0x0a);
  const line = (nl < 0 ? stdout : stdout.subarray(0, nl)).toString('utf8');
  const [status = '', ...args] = line.split(' ');
  return { status, args, payload: nl < 0 ? Buffer.alloc(0) : stdout.subarray(nl + 1) };
}

/** GNU `stat -c '%f %s %i %Y %W %y|%w'` of a file (%W and %w: birth time, 0 and `-` when unknown). */
export interface RemoteStat {
  isDir: boolean;
  isFile: boolean;
  size: number;
  modifiedAt: string;
  /** Birth time, where the remote's file system keeps it. */
  createdAt?: string;
  /** mtime in milliseconds with a fraction, as fs.Stats.mtimeMs. */
  mtimeMs: number;
  /** Changes when the content does: inode, size and mtime to the nanosecond. */
  version: string;
}

/** Parses the words of `info` (the status line's arguments from `from`). */
export function parseStat(words: string[], from = 0): RemoteStat | null {
  const [type, size, inode, seconds, birthSeconds, ...rest] = words.slice(from);
  if (type === undefined || size === undefined || inode === undefined || seconds === undefined || birthSeconds === undefined) return null;
  const raw = parseInt(type, 16) & 0xf000;
  const [modified = '', birth = ''] = rest.join(' ').split('|');
  const ns = nanosOf(modified);
  const birthMs = Number(birthSeconds) * 1000 + Number(nanosOf(birth).slice(0, 3));
  return {
    mtimeMs: mtimeMsOf(seconds, ns),
    isDir: raw === 0x4000,
    isFile: raw === 0x8000,
    size: Number(size),
    // Truncated, as stat and read give them on disk (BigIntStats).
    modifiedAt: new Date(Number(seconds) * 1000 + Number(ns.slice(0, 3))).toISOString(),
    ...(birthMs > 0 ? { createdAt: new Date(birthMs).toISOString() } : {}),
    version: `${inode}:${size}:${seconds}${ns}`,
  };
}

/** The nanoseconds of a `%y`-style time (`2026-11-23 06:50:50.123456789 +0000`), 9 digits. */
function nanosOf(time: string): string {
  return (/\.(\d+)/.exec(time)?.[1] ?? '0').padEnd(9, '0').slice(0, 9);
}

/**
 * `%T@` of find (`1763880650.1234567890`) as an ISO time rounded to the millisecond, as
 * ls and glob give it on disk (fs.Stats.mtime, isoTime of mtimeMs).
 */
export function isoOfFindTime(text: string): string {
  const [seconds = '0', fraction = ''] = text.split('.');
  return isoTime(mtimeMsOf(seconds, fraction));
}

/** Milliseconds as Node computes Stats.mtimeMs from seconds and nanoseconds. */
function mtimeMsOf(seconds: string, fraction: string): number {
  return Number(seconds) * 1e3 + Number(fraction.padEnd(9, '0').slice(0, 9)) / 1e6;
}

/** Reads NUL-terminated fields and framed byte runs from a reply's payload. */
export class FieldReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  /** The next field as bytes, or null at the end. */
  nextBytes(): Buffer | null {
    if (this.done) return null;
    const end = this.buf.indexOf(0, this.pos);
    const stop = end < 0 ? this.buf.length : end;
    const field = this.buf.subarray(this.pos, stop);
    this.pos = stop + 1;
    return field;
  }

  next(): string | null {
    return this.nextBytes()?.toString('utf8') ?? null;
  }

  /** `n` raw bytes. */
  take(n: number): Buffer {
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A FRAMED record's size field then its bytes; null for `-` (unreadable). */
  framed(): Buffer | null {
    const size = this.next();
    if (size === null || size === '-') return null;
    return this.take(Number(size));
  }
}

/** The last non-blank line of a command's output, trimmed (its one-line reason). */
export function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.trim() ?? '';
}
