// Paths that are never written without asking (SPEC §4, §9): `.git/`, `.env*` files, the
// folder's own configuration (what runs once the folder is trusted: MCP servers, hooks,
// skills) and the app's own data. They ask in every mode and whatever the allow rules; deny
// rules and plan mode still win. Matched on purpose without compileGlob: `**` there does not
// enter dot-folders, and here it must.
//
// Pattern syntax: `/`-separated segments; `**` is any number of segments (dot-folders
// included); `*` and `?` in a segment match any characters (a leading dot included).
// A pattern with a leading `/` is anchored at the root; `**/x` matches at any depth.
// A path is protected when the pattern matches the path or one of its parent folders, so
// `/.git/**` and `**/.git` both cover `/.git` and everything below. Matching ignores case
// and trailing dots and spaces of a name: on macOS and Windows `/.GIT/config` and
// `/.env.` are the same files as `/.git/config` and `/.env`.


import { ALL_FOLDER_CONFIG_PLACES } from '../../config/places';
import { GIT_ASK_PATTERNS } from '../../git/git-reads';

/**
 * The folder's own configuration (SPEC §9): `.mcp.json`, `.deepdesk/hooks.json`, Claude
 * Code's settings files (hooks and permission rules), its commands and agents, the skills
 * folders, and any `SKILL.md` wherever it is. The sandbox keeps the same files read-only
 * (sandbox/policy.ts PROTECTED_PROJECT_PATHS).
 */
export const FOLDER_CONFIG_PATHS: readonly string[] = [...ALL_FOLDER_CONFIG_PLACES.map((place) => `/${place}`), '**/SKILL.md'];

/** Each kind of protected path and why writing there asks; the first that matches is told. */
const PROTECTED_KINDS: ReadonlyArray<{ patterns: readonly string[]; reason: string }> = [
  { patterns: GIT_ASK_PATTERNS, reason: 'writes inside .git/ always ask' },
  { patterns: ['**/.env*'], reason: 'writes to .env files always ask' },
  { patterns: FOLDER_CONFIG_PATHS, reason: "writes to the folder's own configuration (MCP servers, hooks, skills) always ask: it runs programs once the folder is trusted" },
  { patterns: ['/.deepdesk/**'], reason: "writes to Deepdesk's own data (/.deepdesk/) always ask" },
];

export const PROTECTED_PATHS: string[] = PROTECTED_KINDS.flatMap((kind) => kind.patterns);

type Segment = '**' | RegExp;

const compiled = new Map<string, Segment[]>();

function compile(pattern: string): Segment[] {
  let segments = compiled.get(pattern);
  if (segments === undefined) {
    segments = pattern
      .replaceAll('\\', '/')
      .split('/')
      .filter((s) => s !== '' && s !== '.')
      .map((s): Segment => {
        if (s === '**') return '**';
        const body = [...canonicalName(s)].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
        return new RegExp(`^${body}$`, 'is');
      });
    compiled.set(pattern, segments);
  }
  return segments;
}

function canonicalName(name: string): string {
  const trimmed = name.replace(/[. ]+$/, '');
  return trimmed === '' ? name : trimmed;
}

/** Failed (segment, part) states are remembered, so `**` costs O(segments × parts) even on hostile paths. */
function matchFrom(segs: Segment[], si: number, parts: string[], pi: number, failed = new Set<number>()): boolean {
  if (si === segs.length) return true; // the rest of the path lies below a matched folder
  const key = si * (parts.length + 1) + pi;
  if (failed.has(key)) return false;
  const seg = segs[si]!;
  let matched = false;
  if (seg === '**') {
    for (let k = pi; k <= parts.length && !matched; k++) matched = matchFrom(segs, si + 1, parts, k, failed);
  } else {
    matched = pi < parts.length && seg.test(canonicalName(parts[pi]!)) && matchFrom(segs, si + 1, parts, pi + 1, failed);
  }
  if (!matched) failed.add(key);
  return matched;
}

function splitPath(path: string): string[] {
  return path.replaceAll('\\', '/').split('/').filter((s) => s !== '' && s !== '.');
}

/**
 * The protected pattern `path` falls under, or null. With `anywhere`, a root-anchored
 * pattern may match from any folder of the path (used for paths written in commands,
 * whose base folder is not known).
 */
export function protectedPattern(path: string, patterns: readonly string[] = PROTECTED_PATHS, anywhere = false): string | null {
  const parts = splitPath(path);
  if (parts.length === 0) return null;
  for (const pattern of patterns) {
    const segs = compile(pattern);
    if (segs.length === 0) continue;
    // From any folder of the path: as if the pattern began with `**`.
    if (matchFrom(anywhere && segs[0] !== '**' ? ['**', ...segs] : segs, 0, parts, 0)) return pattern;
  }
  return null;
}

/** "writes to .env files always ask" and the like, for a pattern of PROTECTED_PATHS or the caller's own. */
export function protectedReason(pattern: string): string {
  const known = PROTECTED_KINDS.find((kind) => kind.patterns.includes(pattern));
  if (known !== undefined) return known.reason;
  const lower = pattern.toLowerCase();
  if (/(^|\/)\.git(\/|$)/.test(lower)) return 'writes inside .git/ always ask';
  if (lower.includes('.env')) return 'writes to .env files always ask';
  if (lower.includes('.deepdesk')) return "writes to Deepdesk's own data (/.deepdesk/) always ask";
  return `writes to protected paths (${pattern}) always ask`;
}
