// Tells, after a sandboxed command, what the sandbox blocked: from the error messages in
// its output (read-only file system, permission denied on a hidden path, cross-device
// links, failed name lookups and connections) judged against the policy, so that a path
// the policy allows is never reported. The result is the one `[Sandbox blocked …]` line.
import { isAbsolute, relative, resolve } from 'node:path';
import { hides, type ResolvedPolicy } from './policy';
import { isPathInside } from '../fs/path-inside';
import { realPathOf } from '../fs/real-path';

export type BlockedItem =
  | { kind: 'write' | 'link' | 'read'; path: string; why: string }
  | { kind: 'network'; host: string };

export interface BlockedContext {
  policy: ResolvedPolicy;
  /** Writable besides the project folder (the run's private temp folder). */
  writable: string[];
  cwd: string;
  /** Extra homes whose `~` the output may use. */
  home: string;
}

/** Errors that a denied write produces. */
const WRITE_ERRORS = /Read-only file system|\bEROFS\b|\[Errno 30\]|Device or resource busy|\bEBUSY\b/;
const DENIED_ERRORS = /Permission denied|\bEACCES\b|Operation not permitted|\bEPERM\b|\[Errno 13\]|\[Errno 1\]/;
const LINK_ERRORS = /cross-device link|\bEXDEV\b|\[Errno 18\]/i;
const MISSING_ERRORS = /No such file or directory|\bENOENT\b|\[Errno 2\]/;
/** A line that is itself an error report ending in a write error (not, e.g., source code quoting one). */
const WRITE_ERROR_LINE = /(?::\s*(?:Read-only file system|Device or resource busy)\.?\s*$)|^\s*(?:Error: )?EROFS:|\[Errno 30\]/;

/** The name just before an error (`bash: line 1: .env: Read-only file system`). */
const BEFORE_ERROR =
  /(?:^|[\s:])([^\s:'"`‘’]+): (?:Read-only file system|Permission denied|Operation not permitted|No such file or directory|Device or resource busy)/g;
const QUOTED = /['‘"`]([^'’"`\n]+)['’"`]/g;
const BARE_PATH = /(?:^|[\s:=(])((?:~|\.{1,2})?\/[^\s:'"`’,;)]+|[A-Za-z0-9_.-]+\/[^\s:'"`’,;)]*)/g;

function candidatePaths(line: string): string[] {
  const found: string[] = [];
  for (const m of line.matchAll(QUOTED)) if (m[1] && /[/~.]/.test(m[1])) found.push(m[1]);
  for (const m of line.matchAll(BARE_PATH)) if (m[1]) found.push(m[1]);
  for (const m of line.matchAll(BEFORE_ERROR)) if (m[1] && !/^(?:line|bash|sh|zsh|\d+)$/.test(m[1])) found.push(m[1]);
  // `bash: line 1: /x: …` and `cat: /x: …`: the token before the error.
  return [...new Set(found.map((p) => p.replace(/[.:]+$/, '')).filter((p) => p.length > 0 && !p.includes('://')))];
}

/** The real path a reported name leads to (a symlink made inside leads where it points). */
function toAbsolute(path: string, ctx: BlockedContext): string {
  if (path === '~' || path.startsWith('~/')) return realPathOf(resolve(ctx.home, path.slice(2)));
  return realPathOf(isAbsolute(path) ? resolve(path) : resolve(ctx.cwd, path));
}

/** What the person and the model are shown: `/…` inside the project folder, the real path elsewhere. */
export function displayPath(path: string, policy: ResolvedPolicy): string {
  if (isPathInside(policy.projectDir, path)) {
    const rel = relative(policy.projectDir, path);
    return rel === '' ? '/' : `/${rel.split('\\').join('/')}`;
  }
  return path;
}

function hiddenReason(path: string, policy: ResolvedPolicy): string | undefined {
  const why = policy.hidden.find((h) => hides(h, path))?.why;
  return why === undefined ? undefined : `${why}, hidden from commands`;
}

function isProtected(path: string, policy: ResolvedPolicy): boolean {
  return policy.protectedPaths.some((p) => isPathInside(p, path));
}

function isPinned(path: string, policy: ResolvedPolicy): boolean {
  return policy.pinnedPaths.includes(path);
}

function isWritable(path: string, ctx: BlockedContext): boolean {
  return [ctx.policy.projectDir, ...ctx.writable].some((root) => isPathInside(root, path));
}

/** Why the policy refuses a write to `path`, or undefined when it allows it. */
function writeRefusal(path: string, ctx: BlockedContext): string | undefined {
  const hidden = hiddenReason(path, ctx.policy);
  if (hidden) return hidden;
  if (isProtected(path, ctx.policy)) return 'a protected path';
  if (!isWritable(path, ctx)) return 'outside the project folder';
  return undefined;
}

/** The shapes of an error report: `tool: path: reason` (coreutils, shells), Node's and Python's. */
const ERROR_REPORT: RegExp[] = [
  /: (?:Read-only file system|Permission denied|Operation not permitted|Device or resource busy|Invalid cross-device link|No such file or directory)\.?\s*$/,
  /\b(?:EROFS|EACCES|EPERM|EBUSY|EXDEV|ENOENT): [^,]+, \w+ '/,
  /\[Errno \d+\] [^:]+: '/,
  /\bconnect E[A-Z]+ \//,
];

function fileItems(line: string, ctx: BlockedContext): BlockedItem[] {
  if (!ERROR_REPORT.some((re) => re.test(line))) return [];
  const write = WRITE_ERRORS.test(line);
  const denied = DENIED_ERRORS.test(line);
  const link = LINK_ERRORS.test(line);
  const missing = MISSING_ERRORS.test(line);
  if (!write && !denied && !link && !missing) return [];
  const items: BlockedItem[] = [];
  for (const candidate of candidatePaths(line)) {
    const path = toAbsolute(candidate, ctx);
    const hidden = hiddenReason(path, ctx.policy);
    if (hidden) {
      items.push({ kind: write ? 'write' : 'read', path, why: hidden });
      continue;
    }
    if (missing && !write && !denied && !link) continue;
    const refusal = writeRefusal(path, ctx) ?? (/busy|EBUSY/.test(line) && isPinned(path, ctx.policy) ? 'a protected path' : undefined);
    if (!refusal) continue;
    if (link) items.push({ kind: 'link', path, why: refusal });
    else if (write || (denied && refusal === 'a protected path')) items.push({ kind: 'write', path, why: refusal });
  }
  if (items.length === 0 && WRITE_ERROR_LINE.test(line)) {
    items.push({ kind: 'write', path: '', why: 'outside the project folder' });
  }
  return items;
}

const NAME_LOOKUP: RegExp[] = [
  /Could not resolve host(?:name)?:? ['"]?([A-Za-z0-9.-]+)/,
  /getaddrinfo (?:EAI_AGAIN|ENOTFOUND|EAI_NONAME|EAI_FAIL) ([A-Za-z0-9.-]+)/,
  /unable to resolve host address ['‘"]?([A-Za-z0-9.-]+)/,
  /Failed to resolve ['"]?([A-Za-z0-9.-]+)/,
  /(?:Name or service not known|Temporary failure in name resolution|nodename nor servname).*host='([A-Za-z0-9.-]+)'/,
  /host='([A-Za-z0-9.-]+)'.*(?:Name or service not known|Temporary failure in name resolution|nodename nor servname)/,
  /ssh: Could not resolve hostname ([A-Za-z0-9.-]+)/,
];
const NAME_LOOKUP_ANY = /Temporary failure in name resolution|Name or service not known|Could not resolve|EAI_AGAIN|nodename nor servname/;
const UNREACHABLE = /Network is unreachable|\bENETUNREACH\b|\bEHOSTUNREACH\b|No route to host|\[Errno 101\]/;
const REFUSED = /Connection refused|\bECONNREFUSED\b|Couldn't connect to server|\[Errno 111\]/;
const CONNECT_TARGET: RegExp[] = [
  /Failed to connect to ([A-Za-z0-9.:[\]-]+?) port (\d+)/,
  /connect (?:ECONNREFUSED|ENETUNREACH|EHOSTUNREACH) \[?([A-Za-z0-9.:-]+?)\]?:(\d+)/,
  /\/dev\/(?:tcp|udp)\/([^/\s]+)\/(\d+)/,
  /Connecting to ([A-Za-z0-9.-]+)(?: \([^)]*\))?(?:\|[^|]*\|)?:(\d+)\.\.\. failed/,
];

interface ConnectAttempt {
  host: string;
  port?: number;
}

function networkAttempts(line: string): { items: BlockedItem[]; refused: ConnectAttempt[] } {
  const items: BlockedItem[] = [];
  const refused: ConnectAttempt[] = [];
  let named = false;
  for (const pattern of NAME_LOOKUP) {
    const m = pattern.exec(line);
    if (m?.[1]) {
      items.push({ kind: 'network', host: m[1] });
      named = true;
      break;
    }
  }
  if (!named && NAME_LOOKUP_ANY.test(line)) items.push({ kind: 'network', host: '' });
  const unreachable = UNREACHABLE.test(line);
  const isRefused = REFUSED.test(line);
  if (!unreachable && !isRefused) return { items, refused };
  let target: ConnectAttempt | undefined;
  for (const pattern of CONNECT_TARGET) {
    const m = pattern.exec(line);
    if (m?.[1]) {
      target = { host: m[1], port: m[2] ? Number(m[2]) : undefined };
      break;
    }
  }
  if (unreachable) items.push({ kind: 'network', host: target ? hostPort(target) : '' });
  else if (target) refused.push(target);
  return { items, refused };
}

function hostPort(a: ConnectAttempt): string {
  if (a.port === undefined) return a.host;
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

/** Every line the checks above could match contains one of these; the rest are skipped at once. */
const ANY_SIGN =
  /Read-only|denied|not permitted|busy|cross-device|ENOENT|No such file|E(?:ROFS|ACCES|PERM|BUSY|XDEV|NETUNREACH|HOSTUNREACH|CONNREFUSED|AI_)|Errno|resolve|unreachable|refused|No route|connect|name resolution|not known|nodename/i;

export async function detectBlocked(output: string, ctx: BlockedContext): Promise<BlockedItem[]> {
  const items: BlockedItem[] = [];
  const refused: ConnectAttempt[] = [];
  for (const line of output.split(/\r?\n/)) {
    if (line.length > 4000 || !ANY_SIGN.test(line)) continue;
    items.push(...fileItems(line, ctx));
    const net = networkAttempts(line);
    items.push(...net.items);
    refused.push(...net.refused);
  }
  // A refused connection to a named port counts as blocked without asking the host whether
  // anything listens there: the answer would be a port scan of the host, chosen by whatever
  // the command printed. Inside, the sandbox's network namespace has its own loopback, so
  // no service of the host is reachable, listening or not.
  for (const attempt of refused) {
    if (attempt.port !== undefined) items.push({ kind: 'network', host: hostPort(attempt) });
  }
  return dedupeItems(items);
}

export function dedupeItems(items: BlockedItem[]): BlockedItem[] {
  const out: BlockedItem[] = [];
  const seen = new Set<string>();
  // A specific report makes the vague one of the same kind redundant.
  const hasSpecificNet = items.some((i) => i.kind === 'network' && i.host !== '');
  const hasSpecificWrite = items.some((i) => i.kind === 'write' && i.path !== '');
  for (const item of items) {
    if (item.kind === 'network' && item.host === '' && hasSpecificNet) continue;
    if (item.kind === 'write' && item.path === '' && hasSpecificWrite) continue;
    const key = item.kind === 'network' ? `n:${item.host}` : `${item.kind}:${item.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}

export function describeItem(item: BlockedItem, policy: ResolvedPolicy): string {
  if (item.kind === 'network') {
    return item.host ? `a network connection to ${item.host}` : 'a network connection';
  }
  if (item.kind === 'write' && item.path === '') return `a write ${item.why}`;
  const where = displayPath(item.path, policy);
  const why = item.why;
  if (item.kind === 'read') return `access to ${where} (${why})`;
  if (item.kind === 'link') return `a link to ${where} (${why})`;
  return `a write to ${where} (${why})`;
}

const MAX_LISTED = 3;

/** The `[Sandbox blocked …]` line, or undefined when nothing was blocked. */
export function formatBlockedLine(items: BlockedItem[], policy: ResolvedPolicy): string | undefined {
  if (items.length === 0) return undefined;
  const listed = items.slice(0, MAX_LISTED).map((i) => describeItem(i, policy));
  const more = items.length - listed.length;
  const text = listed.join('; ') + (more > 0 ? `; and ${more} more` : '');
  const network = items.some((i) => i.kind === 'network');
  const hint = !network ? '' : policy.allowedDomains.length > 0 ? " — not on the folder's allowed domains" : ' — the sandbox has no network';
  return `[Sandbox blocked ${text}${hint}]`;
}
