// The folder goes up as git sees it (SPEC §18): tracked and untracked-not-ignored files, never
// `.git`, never the person's secrets, nothing over the caps. What went up is kept as a
// manifest (POSIX cksum, size, executable bit, or a link's target), so what the agent changed
// is found later without downloading what it did not.

import fs from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { gitEnv, runGit, gitFailure } from '../../core/git/run-git';
import { SECRET_HOME_PATHS } from '../../core/sandbox/policy';
import { CONTENT_SNIFF_BYTES, PEM_SCAN_BYTES, readsWhole, secretByContent, secretByName } from '../../core/sandbox/secret-files';
import { isPathInside } from '../../core/fs/path-inside';
import { realOrSelf } from '../../core/config/entry-files';
import { shQuote } from '../../core/text/shell-quote';
import type { ProviderSandbox, SandboxFileUpload } from '../../core/sandbox-providers/provider';
import { posixCksum } from './posix-cksum';

/**
 * A file (with its set-id bits when it has them), a link, or a kind that never comes back (a fifo, socket or device).
 * A file's `seen`: when a bring-back last listed it, its change time and inode then (bring-back.ts: a
 * file listed again with that very change time, inode and size is not read again).
 */
export type ManifestEntry = { crc: number; size: number; exec: boolean; setid?: true; seen?: SeenInSandbox } | { link: string } | { other: true };
/** A file as a bring-back's listing saw it: `at` the listing's start (the sandbox's clock, seconds), `ctime` and `ino` as `find` printed them. */
export interface SeenInSandbox {
  at: number;
  ctime: string;
  ino: string;
}
/** Folder-relative slash paths → what the sandbox holds there as far as Deepdesk knows. */
export type Manifest = Record<string, ManifestEntry>;

export interface LeftOut {
  rel: string;
  why: string;
  size?: number;
}

export interface UploadPlan {
  files: Array<{ rel: string; size: number; exec: boolean } | { rel: string; link: string }>;
  leftOut: LeftOut[];
  bytes: number;
  /** The folder's size as git sees it, before anything over the total cap was left out. */
  wholeBytes: number;
}

export interface UploadLimits {
  /** A file larger than this stays behind (default 50 MiB). */
  maxFileBytes: number;
  /** The upload as a whole; the largest files stay behind until it fits (default 500 MiB). */
  maxTotalBytes: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { maxFileBytes: 50 * 1024 * 1024, maxTotalBytes: 500 * 1024 * 1024 };

/**
 * Why a folder-relative path must not leave this computer, or undefined: a secret by its class
 * (core/sandbox/secret-files.ts: §7's home secrets wherever they sit, dotenv files, private
 * keys, credential files), a path that really leads into a home secret, or Deepdesk's data folder.
 */
export function secretReason(rel: string, realPath: string, dataDir: string, home = homedir()): string | undefined {
  const byName = secretByName(rel);
  if (byName !== undefined) return byName;
  // Where a path really leads (a link into `~/.ssh`).
  for (const rule of SECRET_HOME_PATHS) if (isPathInside(path.join(home, rule.path), realPath)) return rule.why;
  // Its worktrees (a sandbox thread's folder is one) are the person's folders, not Deepdesk's own files.
  if (isPathInside(dataDir, realPath) && !isPathInside(path.join(dataDir, 'worktrees'), realPath)) return "Deepdesk's data folder";
  return undefined;
}

/** The class of secret a regular file holds by its content (its head; a PEM-like file whole), or undefined. */
export function secretContentReason(abs: string, size: number): string | undefined {
  const whole = readsWhole(path.basename(abs));
  if (whole && size > PEM_SCAN_BYTES) return 'a private key';
  const want = Math.min(size, whole ? PEM_SCAN_BYTES : CONTENT_SNIFF_BYTES);
  if (want === 0) return undefined;
  const head = Buffer.alloc(want);
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined; // Gone since it was listed: not sent either.
  }
  try {
    const n = fs.readSync(fd, head, 0, want, 0);
    return secretByContent(head.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
}

/** What of `folder` goes up: git's view of it, checked file by file. */
export async function planUpload(folder: string, options: { dataDir: string; env: NodeJS.ProcessEnv; limits?: UploadLimits; signal?: AbortSignal }): Promise<UploadPlan> {
  const limits = options.limits ?? DEFAULT_UPLOAD_LIMITS;
  const listed = await runGit(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--full-name', '--', '.'], {
    cwd: folder,
    env: gitEnv(options.env),
    timeoutMs: 120_000,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (listed.code !== 0) throw new Error(`listing the folder's files: ${gitFailure(listed, 120_000)}`);
  const top = (await runGit(['rev-parse', '--show-prefix'], { cwd: folder, env: gitEnv(options.env), timeoutMs: 30_000 })).stdout.trim();
  const realFolder = realOrSelf(folder);
  const dataDir = realOrSelf(options.dataDir);
  const seen = new Set<string>();
  const plan: UploadPlan = { files: [], leftOut: [], bytes: 0, wholeBytes: 0 };
  const sized: Array<{ rel: string; size: number; exec: boolean }> = [];
  for (const full of listed.stdout.split('\0')) {
    if (full === '' || !full.startsWith(top)) continue;
    const rel = full.slice(top.length);
    if (rel === '' || seen.has(rel)) continue;
    seen.add(rel);
    if (rel.split('/').includes('.git')) continue;
    const abs = path.join(folder, rel);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch {
      continue; // A tracked file deleted in the folder: not there to send.
    }
    const real = realOrSelf(abs);
    const secret = secretReason(rel, real, dataDir);
    if (secret !== undefined) {
      plan.leftOut.push({ rel, why: secret });
      continue;
    }
    if (st.isSymbolicLink()) plan.files.push({ rel, link: fs.readlinkSync(abs) });
    // A tracked path under a folder since replaced by a link: its contents are not the folder's.
    else if (!isPathInside(realFolder, real)) plan.leftOut.push({ rel, why: 'leads outside the folder' });
    else if (st.isDirectory()) plan.leftOut.push({ rel, why: 'a submodule' });
    else if (!st.isFile()) plan.leftOut.push({ rel, why: 'not a regular file' });
    else if (st.size > limits.maxFileBytes) plan.leftOut.push({ rel, why: `over the ${formatBytes(limits.maxFileBytes)} file cap`, size: st.size });
    else {
      // Whatever its name: a file that holds a private key or a credential stays behind.
      const held = secretContentReason(abs, st.size);
      if (held !== undefined) plan.leftOut.push({ rel, why: held });
      else sized.push({ rel, size: st.size, exec: (st.mode & 0o111) !== 0 });
    }
  }
  plan.wholeBytes = sized.reduce((sum, f) => sum + f.size, 0);
  let total = plan.wholeBytes;
  if (total > limits.maxTotalBytes) {
    // The largest stay behind first: most of the folder still goes up.
    for (const f of [...sized].sort((a, b) => b.size - a.size)) {
      if (total <= limits.maxTotalBytes) break;
      total -= f.size;
      sized.splice(sized.indexOf(f), 1);
      plan.leftOut.push({ rel: f.rel, why: `over the ${formatBytes(limits.maxTotalBytes)} upload cap`, size: f.size });
    }
  }
  plan.files.push(...sized);
  plan.bytes = total;
  plan.files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  plan.leftOut.sort((a, b) => (a.rel < b.rel ? -1 : 1));
  return plan;
}

/** Files per upload call, and bytes: few calls, none too large for a provider's request. */
const BATCH_FILES = 200;
const BATCH_BYTES = 16 * 1024 * 1024;

/** Sends the plan's files to `sandbox.workdir`; resolves to the manifest of what is there now. */
export async function uploadFolder(sandbox: ProviderSandbox, folder: string, plan: UploadPlan, options: { signal?: AbortSignal } = {}): Promise<Manifest> {
  const manifest: Manifest = {};
  const failed: string[] = [];
  let batch: SandboxFileUpload[] = [];
  let batchBytes = 0;
  const regular = plan.files.filter((f): f is { rel: string; size: number; exec: boolean } => !('link' in f));
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const results = await sandbox.upload(batch, options.signal);
    for (const r of results) {
      if (r.error === undefined) continue;
      const rel = r.path.slice(sandbox.workdir.length + 1);
      delete manifest[rel];
      failed.push(`${rel} (${r.error})`);
    }
    batch = [];
    batchBytes = 0;
  };
  for (const f of regular) {
    let content: Buffer;
    try {
      content = fs.readFileSync(path.join(folder, f.rel));
    } catch {
      continue; // Gone since it was listed.
    }
    // The bytes that go up are checked again: a file may have become a key since it was planned.
    if (secretByContent(readsWhole(f.rel) ? content : content.subarray(0, CONTENT_SNIFF_BYTES)) !== undefined) continue;
    batch.push({ path: `${sandbox.workdir}/${f.rel}`, content, mode: f.exec ? 0o755 : 0o644 });
    manifest[f.rel] = { crc: posixCksum(content), size: content.length, exec: f.exec };
    batchBytes += content.length;
    if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES) await flush();
  }
  await flush();
  const links = plan.files.filter((f): f is { rel: string; link: string } => 'link' in f);
  // A link is made by a command: its target is a short name, not a file's contents.
  for (let i = 0; i < links.length; i += 100) {
    const chunk = links.slice(i, i + 100);
    const script = chunk.map((l) => `mkdir -p -- ${shQuote(path.posix.dirname(`./${l.rel}`))} && ln -sfn -- ${shQuote(l.link)} ${shQuote(`./${l.rel}`)}`).join('\n');
    const r = await sandbox.execute(script, { cwd: sandbox.workdir, timeoutMs: 120_000, ...(options.signal ? { signal: options.signal } : {}) });
    if (r.exitCode !== 0) failed.push(`links (${r.output.trim().split('\n').pop() ?? 'failed'})`);
    else for (const l of chunk) manifest[l.rel] = { link: l.link };
  }
  if (failed.length > 0) throw new Error(`some files could not be uploaded: ${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ` and ${failed.length - 5} more` : ''}`);
  return manifest;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`;
  if (n >= 1024 * 1024) return `${Math.round(n / 1024 / 1024)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** How to send less, or more: said with every upload. */
export const UPLOAD_HOW = 'To leave more out, add it to the folder’s .gitignore; to send more, raise Upload cap (MB) in Settings › Sandboxes.';

/**
 * What went up, and what stayed behind and how to change it: a notice when it happens, a note
 * in each thread of the sandbox (the window shows it, `threads export` has it), and the agent's prompt.
 */
export function uploadSummary(plan: UploadPlan, where: string): string {
  const count = plan.files.length;
  const head = `Uploaded ${count} file${count === 1 ? '' : 's'} (${formatBytes(plan.bytes)}) to ${where}`;
  if (plan.leftOut.length === 0) return `${head}; nothing was left out. ${UPLOAD_HOW}`;
  const shown = plan.leftOut.slice(0, 5).map((l) => `${l.rel} (${l.size !== undefined ? `${formatBytes(l.size)}, ` : ''}${l.why})`);
  // What is not named is still counted by why (its class): `and 12 more (a dotenv file: 7, a private key: 5)`.
  const rest = new Map<string, number>();
  for (const l of plan.leftOut.slice(shown.length)) rest.set(l.why, (rest.get(l.why) ?? 0) + 1);
  const more = plan.leftOut.length > shown.length ? ` and ${plan.leftOut.length - shown.length} more (${[...rest].map(([why, n]) => `${why}: ${n}`).join(', ')})` : '';
  const capped = plan.leftOut.some((l) => l.why.includes('cap'));
  const hint = capped ? ` The folder is ${formatBytes(plan.wholeBytes)} as git sees it. ${UPLOAD_HOW}` : ` ${UPLOAD_HOW}`;
  return `${head}; left out: ${shown.join(', ')}${more}.${hint}`;
}
