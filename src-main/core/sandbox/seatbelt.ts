// The Seatbelt profile for one run (macOS `sandbox-exec -p PROFILE`), in the documented
// Sandbox Profile Language. Later rules win over earlier ones, so each allow is followed
// by the denies carved out of it. Seatbelt matches paths, not mounts: a protected path
// that does not exist yet cannot be created either. Not run on this machine (Linux): only
// the generated text is tested.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ResolvedPolicy } from './policy';
import { isPathInside } from '../fs/path-inside';

export interface SeatbeltRun {
  policy: ResolvedPolicy;
  /** The run's private temp folder (TMPDIR), writable. */
  tmpDir: string;
  /** The domain proxy's port on localhost, when the folder allows domains. */
  proxyPort?: number;
}

export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** An SBPL string literal. */
export function sbplString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Paths under /var, /tmp and /etc are /private/… on macOS; a rule must name both to be sure. */
function spellings(path: string): string[] {
  const out = [path];
  for (const prefix of ['/var/', '/tmp/', '/etc/']) {
    if (path.startsWith(prefix) || path === prefix.slice(0, -1)) out.push(`/private${path}`);
    if (path.startsWith(`/private${prefix}`)) out.push(path.slice('/private'.length));
  }
  return [...new Set(out)];
}

const subpaths = (path: string): string[] => spellings(path).map((p) => `(subpath ${sbplString(p)})`);
const literals = (path: string): string[] => spellings(path).map((p) => `(literal ${sbplString(p)})`);

/** What any process needs to start and run at all (after the base of Chrome's and Codex's profiles). */
const BASE_RULES = [
  '(allow process-exec)',
  '(allow process-fork)',
  '(allow signal (target same-sandbox))',
  '(allow process-info* (target same-sandbox))',
  '(allow sysctl-read)',
  '(allow user-preference-read)',
  // Only the services libc, logging and certificate checks need: launchservicesd (which
  // opens apps) and the keychain's SecurityServer stay out of reach.
  `(allow mach-lookup\n  ${[
    'com.apple.system.opendirectoryd.libinfo',
    'com.apple.system.opendirectoryd.membership',
    'com.apple.system.logger',
    'com.apple.system.notification_center',
    'com.apple.logd',
    'com.apple.diagnosticd',
    'com.apple.bsd.dirhelper',
    'com.apple.trustd.agent',
    'com.apple.cfprefsd.daemon',
    'com.apple.cfprefsd.agent',
    'com.apple.lsd.mapdb',
    'com.apple.PowerManagement.control',
  ]
    .map((name) => `(global-name ${sbplString(name)})`)
    .join('\n  ')})`,
  '(allow ipc-posix-sem)',
  '(allow ipc-posix-shm-read* ipc-posix-shm-write-data)',
  '(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))',
  '(allow pseudo-tty)',
  '(allow file-ioctl (literal "/dev/tty") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))',
];

export function seatbeltProfile(run: SeatbeltRun): string {
  const { policy } = run;
  const lines: string[] = ['(version 1)', '(deny default)', ...BASE_RULES];
  lines.push('; Reads: everything but the secrets.');
  lines.push('(allow file-read*)');
  const hidden = policy.hidden.flatMap((h) => subpaths(h.path));
  if (hidden.length > 0) lines.push(`(deny file-read* file-write*\n  ${hidden.join('\n  ')})`);
  lines.push('; Writes: the project folder, the private temp folder and the terminal devices.');
  const writable = [
    ...subpaths(policy.projectDir),
    ...subpaths(run.tmpDir),
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/tty")',
    '(literal "/dev/dtracehelper")',
    '(regex #"^/dev/ttys[0-9]+$")',
    '(regex #"^/dev/fd/[0-9]+$")',
  ];
  lines.push(`(allow file-write*\n  ${writable.join('\n  ')})`);
  // Without a `.git` yet, `git init` must be able to write its sample hooks; what it leaves
  // is checked after the run (core/git/surface.ts).
  const gitDir = `${policy.projectDir}/.git`;
  const gitExists = existsSync(gitDir);
  const protectedRules = policy.protectedPaths
    .filter((p) => gitExists || !(p === gitDir || p.startsWith(`${gitDir}/`)))
    .flatMap((p) => [...literals(p), ...subpaths(p)]);
  // Existing pinned folders (`.git`) may be written inside but not moved or deleted.
  protectedRules.push(...policy.pinnedPaths.filter((p) => existsSync(p)).flatMap((p) => literals(p)));
  const denyProtected = protectedRules.length > 0 ? `(deny file-write*\n  ${[...new Set(protectedRules)].join('\n  ')})` : undefined;
  if (denyProtected) lines.push(denyProtected);
  lines.push('; Secrets stay hidden even where they sit in a writable folder.');
  if (hidden.length > 0) lines.push(`(deny file-read* file-write*\n  ${hidden.join('\n  ')})`);
  // A folder a hidden one shows (a trusted plugin's, for what it runs): read, never written;
  // the folders leading to it can be passed through, not listed.
  const shown = policy.hidden.flatMap((h) => (h.shows ?? []).map((folder) => ({ folder, under: h.path })));
  if (shown.length > 0) {
    const way = new Set<string>();
    for (const { folder, under } of shown) {
      for (let dir = dirname(folder); isPathInside(under, dir); dir = dirname(dir)) {
        for (const rule of literals(dir)) way.add(rule);
        if (dir === under) break;
      }
    }
    lines.push('; Folders shown inside a hidden folder: read only.');
    if (way.size > 0) lines.push(`(allow file-read-metadata\n  ${[...way].join('\n  ')})`);
    lines.push(`(allow file-read*\n  ${shown.flatMap(({ folder }) => subpaths(folder)).join('\n  ')})`);
  }
  // A hidden folder that holds the project folder (a worktree in the data folder): the
  // project folder alone is the command's again, after the denies above, with its protected
  // paths and the secrets inside it denied once more after that. The folders leading to it
  // can be passed through (their own metadata), not listed.
  const holding = policy.hidden.filter((h) => h.contains !== undefined);
  if (holding.length > 0) {
    lines.push('; The project folder inside a hidden folder: only it, and the way to it.');
    const way = new Set<string>();
    for (const h of holding) {
      for (let dir = dirname(policy.projectDir); isPathInside(h.path, dir); dir = dirname(dir)) {
        for (const rule of literals(dir)) way.add(rule);
        if (dir === h.path) break;
      }
    }
    if (way.size > 0) lines.push(`(allow file-read-metadata\n  ${[...way].join('\n  ')})`);
    lines.push(`(allow file-read* file-write*\n  ${subpaths(policy.projectDir).join('\n  ')})`);
    if (denyProtected) lines.push(denyProtected);
    const inside = policy.hidden.filter((h) => h.contains === undefined && isPathInside(policy.projectDir, h.path)).flatMap((h) => subpaths(h.path));
    if (inside.length > 0) lines.push(`(deny file-read* file-write*\n  ${inside.join('\n  ')})`);
  }
  lines.push('; No network, except the domain proxy (which lets only the allowed domains through).');
  lines.push('(deny network*)');
  if (run.proxyPort !== undefined) lines.push(`(allow network-outbound (remote ip ${sbplString(`localhost:${run.proxyPort}`)}))`);
  return `${lines.join('\n')}\n`;
}

/** The `sandbox-exec` arguments that run `file args…` under the profile. */
export function seatbeltArgs(run: SeatbeltRun, file: string, args: string[]): string[] {
  return ['-p', seatbeltProfile(run), file, ...args];
}
