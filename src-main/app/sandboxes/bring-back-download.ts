// What comes back from a provider's sandbox (SPEC §18) is capped, fits on the disk, and never sits
// whole in the host's memory: every thread lives in the agent host, so one sandbox's file must
// not be able to take it over. The sizes the sandbox listed are checked against the caps of
// Settings › Sandboxes (per file, per step) and the free space of the disks it lands on before
// anything is downloaded; then each file comes down in pieces of at most PIECE_BYTES, written to
// its place in the layer folder as they arrive, and is kept only when its size and cksum are what
// the sandbox listed.
//
// How, over every provider alike: the four SDKs' file APIs download a whole file into memory
// (Daytona `fs.downloadFiles`, E2B `files.read`, Modal `open().read()`, Deno `fs.readFile`), and
// base64 through a command's output is what §18 rules out. So a piece is first copied in the
// sandbox with `dd` (`bs=PIECE_BYTES skip=i count=1`: never more than a piece, whatever the file
// became since it was listed) into a staging folder of Deepdesk's, and the staged pieces come
// down through the provider's file API, a batch of at most BATCH_BYTES at a time. Files of one
// piece (most of a change) are staged many to a file instead — their `cat`, cut by `head -c` at
// the sum of their listed sizes and one byte, so nothing a file became makes it longer — and cut
// here at the listed sizes: a process pair per batch, where a `dd` per file costs milliseconds
// each in a sandbox. What does not match its listing there comes again piece by piece. When the
// listing itself read the changed files (bring-back.ts: those changed since an earlier listing),
// its script staged them too, joined the same way under the caps, so they come down with no
// staging script of their own — unless a file the caps refuse is in that batch.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { ProviderSandbox } from '../../core/sandbox-providers/provider';
import { shQuote } from '../../core/text/shell-quote';
import { formatBytes } from './folder-upload';
import { posixCksum, posixCksumFile } from './posix-cksum';

export interface BringBackLimits {
  /** A file the sandbox lists larger than this is not brought back (default 50 MiB). */
  maxFileBytes: number;
  /** What one step brings back; the largest files are refused until it fits (default 500 MiB). */
  maxStepBytes: number;
}

export const DEFAULT_BRING_BACK_LIMITS: BringBackLimits = { maxFileBytes: 50 * 1024 * 1024, maxStepBytes: 500 * 1024 * 1024 };

/** The Settings fields a refusal names (contract/sandboxes.ts `maxBringBackFileMb`, `maxBringBackStepMb`). */
export const BRING_BACK_FILE_SETTING = 'Settings › Sandboxes › Bring-back cap per file (MB)';
export const BRING_BACK_STEP_SETTING = 'Settings › Sandboxes › Bring-back cap per step (MB)';

/** Bytes per piece: what one `dd` stages and the host holds of a file at once. */
export const PIECE_BYTES = 4 * 1024 * 1024;
/** Bytes per download call (whole pieces): the most the host holds at once. */
export const BATCH_BYTES = 8 * 1024 * 1024;
const BATCH_PIECES = 200;
/** Free space left on a disk after a bring-back, at least. */
export const FREE_SPACE_RESERVE = 16 * 1024 * 1024;

export interface WantedFile {
  rel: string;
  size: number;
  crc: number;
}

/** Which of the changed files may come back under the caps, and why the rest may not. */
export function capBringBack(files: readonly WantedFile[], limits: BringBackLimits): { take: WantedFile[]; refused: Array<{ rel: string; size: number; why: string }> } {
  const refused: Array<{ rel: string; size: number; why: string }> = [];
  const take: WantedFile[] = [];
  for (const f of files) {
    if (f.size > limits.maxFileBytes) refused.push({ rel: f.rel, size: f.size, why: `${formatBytes(f.size)}, over the ${formatBytes(limits.maxFileBytes)} cap per file brought back; not brought back — raise ${BRING_BACK_FILE_SETTING}` });
    else take.push(f);
  }
  let total = take.reduce((sum, f) => sum + f.size, 0);
  if (total > limits.maxStepBytes) {
    // The largest stay in the sandbox first: most of the step still comes back.
    for (const f of [...take].sort((a, b) => b.size - a.size)) {
      if (total <= limits.maxStepBytes) break;
      total -= f.size;
      take.splice(take.indexOf(f), 1);
      refused.push({ rel: f.rel, size: f.size, why: `${formatBytes(f.size)}; the step's changes are over the ${formatBytes(limits.maxStepBytes)} cap per step brought back; not brought back — raise ${BRING_BACK_STEP_SETTING}` });
    }
  }
  return { take, refused };
}

export type StatFs = (dir: string) => Promise<{ bavail: number; bsize: number }>;

/**
 * Why nothing may be downloaded, or undefined: the disks the files land on (the layer folder's,
 * then the worktree's: on one disk both count) would keep less than FREE_SPACE_RESERVE free.
 */
export async function lackOfSpace(dirs: readonly string[], bytes: number, statfs: StatFs = (dir) => fs.promises.statfs(dir)): Promise<string | undefined> {
  if (bytes === 0) return undefined;
  const need = new Map<number, { dir: string; bytes: number }>();
  for (const dir of dirs) {
    const dev = fs.statSync(dir).dev;
    const at = need.get(dev);
    if (at) at.bytes += bytes;
    else need.set(dev, { dir, bytes });
  }
  for (const { dir, bytes: needed } of need.values()) {
    const st = await statfs(dir);
    const free = st.bavail * st.bsize;
    if (free < needed + FREE_SPACE_RESERVE) {
      return `(${formatBytes(bytes)} of changes) not brought back: the disk of ${dir} has ${formatBytes(free)} free and ${formatBytes(needed + FREE_SPACE_RESERVE)} is needed. Free some space there; the changes stay in the sandbox and come back with the next step`;
    }
  }
  return undefined;
}

interface Piece {
  file: WantedFile;
  index: number;
  length: number;
}

/** Most bytes of quoted paths in one staging script (a command is one argument: 128 KiB on Linux). */
const SCRIPT_PATH_BYTES = 64 * 1024;

/**
 * Downloads `files` (as the sandbox listed them, relative to its workdir) to `destOf(rel)`;
 * resolves to the files that arrived whole and match their listed size and cksum (the others
 * are removed: looked at again next time). Files of one piece come first, many to a staged
 * file (`cat` of them cut by `head -c` at their listed sizes' sum and one byte: one process
 * pair and one download for a batch, where a `dd` per file costs milliseconds each), cut here
 * at the listed sizes; those that do not match (one of them changed since the listing shifts
 * the ones after it) and the larger files come piece by piece, a `dd` each.
 */
export async function downloadToDisk(
  sandbox: ProviderSandbox,
  files: readonly WantedFile[],
  destOf: (rel: string) => string,
  signal?: AbortSignal,
  /** Given: the staging's removal is handed here once started, for the caller to wait for after its own work (a step's calls are done when it is); else it is waited for here. */
  cleanup?: (removed: Promise<unknown>) => void,
  /** What the listing already staged. */
  prestaged?: Prestaged,
): Promise<Set<string>> {
  const stage = prestaged?.dir ?? `/tmp/deepdesk-back-${randomBytes(12).toString('hex')}`;
  const exec = (script: string) => sandbox.execute(script, { cwd: sandbox.workdir, timeoutMs: 300_000, oneCall: true, ...(signal ? { signal } : {}) });
  try {
    const early = prestaged ? await takePrestaged(sandbox, files, destOf, prestaged, signal) : new Set<string>();
    const small = files.filter((f) => f.size <= PIECE_BYTES && !early.has(f.rel));
    const whole = small.length > 1 ? await downloadJoined(small, destOf, stage, exec, sandbox, signal) : new Set<string>();
    for (const rel of early) whole.add(rel);
    const rest = files.filter((f) => !whole.has(f.rel));
    for (const rel of await downloadPieces(rest, destOf, stage, exec, sandbox, signal)) whole.add(rel);
    return whole;
  } finally {
    // Waited for, here or by the caller: a step's calls are done when it is (the sandbox may be stopped right after).
    const removed = exec(`rm -rf -- ${shQuote(stage)}`).catch(() => undefined);
    if (cleanup) cleanup(removed);
    else await removed;
  }
}

type Exec = (script: string) => ReturnType<ProviderSandbox['execute']>;

const STAGE_DIR = `rm -rf -- "$S" && mkdir -m 700 -- "$S" || exit 97`;

async function staged(exec: Exec, script: string[]): Promise<void> {
  const r = await exec(script.join('\n'));
  if (r.exitCode !== 0) throw new Error(`could not stage the changed files in the sandbox: ${r.output.trim().split('\n').pop() ?? `exit ${r.exitCode}`}`);
}

/**
 * The wanted files out of what the listing staged, joined in its order (`pre`, cut at
 * `maxBytes`), cut here at the sizes it listed and kept when each matches its listed cksum.
 * Downloaded only when some wanted file is in it and none the caps refused is: what the caps
 * refuse never comes down. The rest come the usual way.
 */
async function takePrestaged(
  sandbox: ProviderSandbox,
  files: readonly WantedFile[],
  destOf: (rel: string) => string,
  pre: Prestaged,
  signal?: AbortSignal,
): Promise<Set<string>> {
  const wanted = new Map(files.map((f) => [f.rel, f]));
  const placed: Array<{ file: WantedFile; at: number }> = [];
  let at = 0;
  for (const o of pre.order) {
    if (o.size > pre.maxFileBytes) continue;
    if (at >= pre.maxBytes) break;
    // Some of it would come down.
    if (pre.refused.has(o.rel)) return new Set();
    const f = wanted.get(o.rel);
    // Only what was listed so: the same size and cksum as the file wanted.
    if (f && f.size === o.size && f.crc === o.crc && at + o.size <= pre.maxBytes) placed.push({ file: f, at });
    at += o.size;
  }
  const whole = new Set<string>();
  if (placed.length === 0) return whole;
  const [got] = await sandbox.download([`${pre.dir}/pre`], signal);
  const joined = got?.content;
  if (joined === undefined || joined.length > pre.maxBytes) return whole;
  for (const { file, at: from } of placed) {
    if (from + file.size > joined.length) break;
    const bytes = joined.subarray(from, from + file.size);
    if (posixCksum(bytes) !== file.crc) continue;
    fs.writeFileSync(destOf(file.rel), bytes, { mode: 0o600 });
    whole.add(file.rel);
  }
  return whole;
}

/** What a listing staged (bring-back.ts PreStage): `pre` in `dir`, the files it read joined in `order`, cut at `maxBytes`; none over `maxFileBytes`; `refused`: what the caps refuse. */
export interface Prestaged {
  dir: string;
  order: ReadonlyArray<{ rel: string; size: number; crc: number }>;
  maxFileBytes: number;
  maxBytes: number;
  refused: ReadonlySet<string>;
}

/** Kept when the file at `dest` has the listed size and cksum; else removed. */
function keepIfListed(file: WantedFile, dest: string): boolean {
  const sum = posixCksumFile(dest);
  if (sum && sum.size === file.size && sum.crc === file.crc) return true;
  fs.rmSync(dest, { force: true });
  return false;
}

/**
 * Files of one piece each, in batches of at most BATCH_BYTES: each batch staged as one file, the
 * `cat` of its files cut at their listed sizes' sum plus one byte (a file that grew, or became a
 * link to anything, never makes it longer), downloaded one batch at a time and cut here at the
 * listed sizes. The files that match their listing.
 */
async function downloadJoined(files: readonly WantedFile[], destOf: (rel: string) => string, stage: string, exec: Exec, sandbox: ProviderSandbox, signal?: AbortSignal): Promise<Set<string>> {
  const batches: WantedFile[][] = [];
  let batch: WantedFile[] = [];
  let bytes = 0;
  let pathBytes = 0;
  for (const f of files) {
    const quoted = shQuote(`./${f.rel}`).length + 1;
    if (batch.length > 0 && (bytes + f.size > BATCH_BYTES || batch.length >= BATCH_PIECES || pathBytes + quoted > SCRIPT_PATH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
      pathBytes = 0;
    }
    batch.push(f);
    bytes += f.size;
    pathBytes += quoted;
  }
  if (batch.length > 0) batches.push(batch);
  const whole = new Set<string>();
  for (const [k, group] of batches.entries()) {
    const total = group.reduce((sum, f) => sum + f.size, 0);
    await staged(exec, [`S=${shQuote(stage)}`, STAGE_DIR, `cat -- ${group.map((f) => shQuote(`./${f.rel}`)).join(' ')} 2>/dev/null | head -c ${total + 1} > "$S/${k}"`]);
    const [got] = await sandbox.download([`${stage}/${k}`], signal);
    const joined = got?.content;
    if (joined === undefined) continue;
    let at = 0;
    for (const f of group) {
      // Short of this file's listed bytes: it and the rest changed since the listing.
      if (at + f.size > joined.length) break;
      const bytes = joined.subarray(at, at + f.size);
      at += f.size;
      if (posixCksum(bytes) !== f.crc) continue;
      fs.writeFileSync(destOf(f.rel), bytes, { mode: 0o600 });
      whole.add(f.rel);
    }
  }
  return whole;
}

/**
 * Downloads `files` piece by piece: each piece staged by `dd` (never more than PIECE_BYTES,
 * whatever the file is now), at most BATCH_BYTES of pieces per download. The files that match
 * their listing.
 */
async function downloadPieces(files: readonly WantedFile[], destOf: (rel: string) => string, stage: string, exec: Exec, sandbox: ProviderSandbox, signal?: AbortSignal): Promise<Set<string>> {
  const pieces: Piece[] = [];
  for (const file of files) {
    const count = Math.max(1, Math.ceil(file.size / PIECE_BYTES));
    for (let index = 0; index < count; index++) pieces.push({ file, index, length: Math.max(0, Math.min(PIECE_BYTES, file.size - index * PIECE_BYTES)) });
  }
  const bad = new Set<string>();
  const started = new Set<string>();
  for (let i = 0; i < pieces.length; ) {
    const batch: Piece[] = [];
    let bytes = 0;
    while (i < pieces.length && batch.length < BATCH_PIECES && (batch.length === 0 || bytes + pieces[i]!.length <= BATCH_BYTES)) {
      bytes += pieces[i]!.length;
      batch.push(pieces[i++]!);
    }
    const todo = batch.filter((p) => !bad.has(p.file.rel));
    if (todo.length === 0) continue;
    // Staged by `dd`: a piece is never more than PIECE_BYTES, whatever the file is now.
    await staged(exec, [
      `S=${shQuote(stage)}`,
      STAGE_DIR,
      ...todo.map((p, k) => `dd ${shQuote(`if=./${p.file.rel}`)} of="$S/${k}" bs=${PIECE_BYTES} skip=${p.index} count=1 2>/dev/null || : > "$S/${k}"`),
    ]);
    const got = await sandbox.download(todo.map((_, k) => `${stage}/${k}`), signal);
    for (let k = 0; k < todo.length; k++) {
      const p = todo[k]!;
      const d = got[k];
      const rel = p.file.rel;
      if (bad.has(rel)) continue;
      // Gone, or not the piece the listing promised: the file changed since; looked at again next time.
      if (!d || d.content === undefined || d.content.length !== p.length) {
        bad.add(rel);
        continue;
      }
      const dest = destOf(rel);
      const fd = fs.openSync(dest, started.has(rel) ? 'r+' : 'w', 0o600);
      started.add(rel);
      try {
        fs.writeSync(fd, d.content, 0, d.content.length, p.index * PIECE_BYTES);
      } finally {
        fs.closeSync(fd);
      }
    }
  }
  const whole = new Set<string>();
  for (const file of files) {
    if (!started.has(file.rel)) continue;
    const dest = destOf(file.rel);
    if (bad.has(file.rel)) fs.rmSync(dest, { force: true });
    else if (keepIfListed(file, dest)) whole.add(file.rel);
  }
  return whole;
}
