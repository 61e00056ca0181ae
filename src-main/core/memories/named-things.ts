// What a memory names that its project could lose (SPEC §25 "Stale"): paths, npm/make/just
// scripts, and the git branches and dependencies it calls so by name in backticks. Pure text
// reading: the probe (project-probe.ts) says whether each is still there. It errs towards
// naming less: URLs, `~/` paths, dates and fractions, globs, routes, refs and import specifiers
// are not names, and a path that only a slash makes one (`src/parser`, but also `and/or`,
// `read/write`) is `weak`: judged only where its first folder exists.

import { RESERVED_MOUNT_PREFIXES } from '../backends/mounts/mount-spec';

/** `npm` stands for any runner of package.json scripts (npm, pnpm, yarn, bun). */
export type ScriptRunner = 'npm' | 'make' | 'just';

export type NamedThing =
  /**
   * A project-relative path (a leading `/` or `./` taken off). Not `weak`: a file name
   * (`src/x.ts`, `config/.env`), `./a/b` or a folder `a/b/`, missing even with its first folder.
   * `weak`: only a slash makes it one (`src/helpers`, `client/server`, a system path like
   * `/etc/hosts`), so it is judged only where its first folder exists.
   */
  | { kind: 'path'; path: string; weak: boolean }
  /** `written`: as the memory has it (`npm run lint`). */
  | { kind: 'script'; runner: ScriptRunner; script: string; written: string }
  | { kind: 'branch'; name: string }
  /** `called`: what the memory called it; a Go project's `package` is one of its own folders. */
  | { kind: 'dependency'; name: string; called: 'dependency' | 'package' };

/** How the stale mark names it: `scripts/build.sh`, `npm run lint`, `branch release-2`, `dependency lodash`. */
export function thingLabel(thing: NamedThing): string {
  switch (thing.kind) {
    case 'path':
      return thing.path;
    case 'script':
      return thing.written;
    case 'branch':
      return `branch ${thing.name}`;
    case 'dependency':
      return `dependency ${thing.name}`;
  }
}

/** A run of the text: prose, an inline code span (its content), or a fenced block's content. */
interface Piece {
  text: string;
  start: number;
  kind: 'prose' | 'span' | 'block';
}

export function namedThings(text: string): NamedThing[] {
  const pieces = piecesOf(text);
  const things: NamedThing[] = [];
  const taken = new Set<number>();
  for (const t of calledThings(text, taken)) things.push(t);
  for (const t of scripts(pieces)) things.push(t);
  for (const p of pieces) {
    if (p.kind === 'span' && taken.has(p.start)) continue;
    for (const path of pathsIn(p, text)) things.push(path);
  }
  const seen = new Set<string>();
  return things.filter((t) => {
    const key = `${t.kind}\0${thingLabel(t)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function piecesOf(text: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  const prose = (end: number) => {
    if (end > at) pieces.push({ text: text.slice(at, end), start: at, kind: 'prose' });
  };
  // Fenced blocks first (``` or ~~~ at a line's start, to the same fence or the end), then code spans in what is left.
  const code = /^(```+|~~~+)[^\n]*\n([\s\S]*?)(?:^\1[^\S\n]*$|(?![\s\S]))|(`+)([^`]|[^`][\s\S]*?[^`])\3(?!`)/gm;
  for (const m of text.matchAll(code)) {
    prose(m.index);
    if (m[1] !== undefined) pieces.push({ text: m[2] ?? '', start: m.index + m[0].indexOf('\n') + 1, kind: 'block' });
    else pieces.push({ text: m[4]!, start: m.index + m[3]!.length, kind: 'span' });
    at = m.index + m[0].length;
  }
  prose(text.length);
  return pieces;
}

// ---- branches and dependencies: a name in backticks the memory calls one ----

const KEYWORD = String.raw`(branch(?:es)?|(?:dev[- ]?|peer |optional )?dependenc(?:y|ies)|devDependenc(?:y|ies)|deps?|packages?)(?!\.json|-lock|\.ya?ml)`;
const QUALIFIER = String.raw`(?:npm|pypi|python|go|node|dev|peer|optional|runtime|git|remote|local|feature|release|third-party|new|old)`;
const SPAN = '`[^`\\n]+`';
const LIST = String.raw`${SPAN}(?:(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)${SPAN})*`;
const CALLED_AFTER = new RegExp(String.raw`(${LIST})\s+(?:${QUALIFIER}\s+){0,2}${KEYWORD}\b`, 'gi');
const CALLED_BEFORE = new RegExp(String.raw`\b${KEYWORD}\s+(?:(?:named|called)\s+)?(${LIST})`, 'gi');

/** Words code calls a branch that are no git branch (`the else branch`). */
const CODE_BRANCHES = new Set(['if', 'else', 'elif', 'elseif', 'default', 'case', 'switch', 'catch', 'try', 'then', 'finally', 'match', 'when', 'true', 'false', 'null', 'nil', 'none', 'undefined', 'except', 'otherwise']);

function calledThings(text: string, taken: Set<number>): NamedThing[] {
  const found: Array<{ at: number; thing: NamedThing }> = [];
  const add = (list: string, listAt: number, keyword: string) => {
    const word = keyword.toLowerCase();
    for (const s of list.matchAll(/`([^`\n]+)`/g)) {
      const at = listAt + s.index + 1;
      taken.add(at);
      const thing = word.startsWith('branch') ? branchThing(s[1]!) : dependencyThing(s[1]!, word.startsWith('package') ? 'package' : 'dependency');
      if (thing !== null) found.push({ at, thing });
    }
  };
  for (const m of text.matchAll(CALLED_AFTER)) add(m[1]!, m.index, m[2]!);
  for (const m of text.matchAll(CALLED_BEFORE)) add(m[2]!, m.index + m[0].lastIndexOf(m[2]!), m[1]!);
  return found.sort((a, b) => a.at - b.at).map((f) => f.thing);
}

function branchThing(raw: string): NamedThing | null {
  const name = raw.trim();
  if (!/^[\w][\w./-]*$/.test(name) || name.endsWith('/') || name.endsWith('.') || CODE_BRANCHES.has(name.toLowerCase())) return null;
  return { kind: 'branch', name };
}

function dependencyThing(raw: string, called: 'dependency' | 'package'): NamedThing | null {
  let name = raw.trim().split(/\s+/)[0]!;
  // A version or extras after the name: `zod@^3`, `@types/node@20`, `requests[socks]>=2`.
  name = name.replace(/(?!^)@.*$/, '').replace(/[[<>=!~;].*$/, '');
  if (!/^(@[\w.-]+\/)?[\w][\w./-]*$/.test(name) || name.endsWith('.json') || name.endsWith('.toml') || name.endsWith('.mod')) return null;
  return { kind: 'dependency', name, called };
}

// ---- scripts ----

/** Words after "make"/"just" in prose that show it is English, not a target. */
const NOT_TARGETS = new Set([
  'a', 'an', 'the', 'it', 'its', 'this', 'that', 'these', 'those', 'them', 'they', 'sure', 'sense', 'to', 'and', 'or', 'for', 'in', 'on', 'with',
  'from', 'so', 'use', 'up', 'changes', 'change', 'any', 'all', 'some', 'one', 'no', 'not', 'every', 'each', 'your', 'our', 'my', 'his', 'her',
  'their', 'as', 'at', 'by', 'if', 'when', 'then', 'is', 'be', 'do', 'does', 'did', 'was', 'only', 'once', 'again', 'more', 'less',
]);

/** A command word stands at a command's start: the piece's or line's, or after a shell operator or `$ `. */
const COMMAND_START = String.raw`(?:^|[\n;&|(]\s*|\$\s+)`;
/** Prose that says the next words are a command ("just" is English too often to take more). */
const COMMAND_VERB = { make: String.raw`\b(?:run|runs|running|ran|use|using|via|with|call|calling|invoke|execute|executing|type)\s+`, just: String.raw`\b(?:run|runs|running|ran|via|invoke)\s+` };

function scripts(pieces: readonly Piece[]): NamedThing[] {
  const found: NamedThing[] = [];
  for (const p of pieces) {
    for (const m of p.text.matchAll(/\b(npm|pnpm|yarn|bun)\s+run\s+([\w:@][\w:.@/-]*)/g)) {
      const script = stripTail(m[2]!);
      found.push({ kind: 'script', runner: 'npm', script, written: `${m[1]} run ${script}` });
    }
    for (const runner of ['make', 'just'] as const) {
      const start = p.kind === 'prose' ? COMMAND_VERB[runner] : `(?:${COMMAND_START}|${COMMAND_VERB[runner]})`;
      for (const m of p.text.matchAll(new RegExp(String.raw`${start}${runner}((?:\s+-[\w-]+)*)\s+([A-Za-z0-9_][\w.:/-]*)(?![\w=])`, 'gi'))) {
        const target = stripTail(m[2]!);
        // `make -C dir x`, `make -f other.mk x`: another Makefile.
        if (/(^|\s)(-C|-f|-d|--directory|--file|--makefile|--justfile|--working-directory)\b/.test(m[1]!)) continue;
        if (!m[0].includes(runner) || NOT_TARGETS.has(target.toLowerCase())) continue;
        found.push({ kind: 'script', runner, script: target, written: `${runner} ${target}` });
      }
    }
  }
  return found;
}

function stripTail(name: string): string {
  return name.replace(/[.:/]+$/, '');
}

// ---- paths ----

/** Top folders of a computer, not of a project (`/dev/null`, `/usr/bin/env`, `/tmp/x.log`): judged only where the project has one. */
const SYSTEM_TOPS = new Set([
  'bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib64', 'media', 'mnt', 'opt', 'proc', 'root', 'run', 'sbin', 'srv', 'sys', 'tmp', 'usr', 'var',
  'Users', 'Library', 'System', 'Applications', 'Volumes', 'private', 'nix', 'snap', 'cores', 'Windows',
]);
/** The agent's own mounts (memories, results, history, attachments, skills): not the project's. */
const MOUNT_TOPS = new Set(RESERVED_MOUNT_PREFIXES.map((p) => p.slice(1, -1)));
/** Git's names for refs: `origin/main`, `refs/heads/x`. */
const REF_TOPS = new Set(['origin', 'upstream', 'refs', 'remotes', 'heads']);
const TLDS = new Set(['com', 'org', 'net', 'io', 'dev', 'ai', 'app', 'co', 'edu', 'gov', 'me', 'gg', 'xyz', 'cloud', 'us', 'uk', 'de', 'in', 'info', 'so']);
/** Library names that end like a file: `TypeScript/Node.js`. */
const LIBRARY_NAMES = /^(node|vue|next|nuxt|react|express|three|d3|chart|ember|backbone|angular|nest|deno|bun|solid|svelte|alpine|socket|moment|p5)\.(js|io)$/i;
const HTTP_BEFORE = /\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s*`?$/;
const ROUTE_AFTER = /^`?\s*(endpoint|endpoints|route|routes|url|urls|page|pages|handler|api)\b/i;
const GIT_REF_COMMAND = /\bgit\s+(checkout|switch|rebase|merge|branch|push|pull|fetch|reset|diff|log|cherry-pick|worktree|tag|show|revert)\b[^\n]*$/;
const IMPORT_BEFORE = /(\bfrom|\bimport|\brequire\(|\bimport\()\s*$/;

function pathsIn(piece: Piece, whole: string): NamedThing[] {
  const found: NamedThing[] = [];
  for (const m of piece.text.matchAll(/[^\s,;|]+/g)) {
    const raw = m[0];
    if (!raw.includes('/')) continue;
    const at = piece.start + m.index;
    const before = whole.slice(Math.max(0, at - 80), at);
    const after = whole.slice(at + raw.length, at + raw.length + 40);
    if (HTTP_BEFORE.test(before) || ROUTE_AFTER.test(after)) continue;
    if (/\bbranch(es)?\s+((named|called)\s+)?$/i.test(before) || /^\s+branch\b/i.test(after)) continue;
    // An import specifier is relative to its file, or a package.
    if (piece.kind !== 'prose' && ((IMPORT_BEFORE.test(before) && /^['"]/.test(raw)) || /\b(require|import)\(/.test(raw))) continue;
    // A glob (`release/*`, `src/**/*.ts`) names many paths or none.
    if (/\/\*|\*\/|\*\.\w/.test(raw)) continue;
    const token = cleanToken(raw);
    if (token === null) continue;
    const thing = pathThing(token);
    if (thing === null) continue;
    // `git checkout feature/x`: a ref, unless it is a file.
    if (piece.kind !== 'prose' && !hasExtension(thing.path) && GIT_REF_COMMAND.test(piece.text.slice(0, m.index))) continue;
    found.push(thing);
  }
  return found;
}

/** The token without Markdown and punctuation around it, a `:line` or `#L1` after it, or a `--flag=` before it; null when it cannot be a path. */
function cleanToken(raw: string): string | null {
  let t = raw;
  const link = /\]\(([^)\s]+)\)/.exec(t);
  if (link) t = link[1]!;
  let prev = '';
  while (prev !== t) {
    prev = t;
    t = t.replace(/^[([{<"'“‘*]+/, '').replace(/[)\]}>"'”’*.,;:!?]+$/, '').replace(/'s$/, '');
  }
  t = t.replace(/#L?\d[\w-]*$/, '').replace(/(:\d+(-\d+)?)+$/, '');
  if (t.includes('://') || /^[\w.+-]+:/.test(t) || t.startsWith('~') || t.startsWith('$') || t.startsWith('%') || t.startsWith('@')) return null;
  const eq = t.lastIndexOf('=');
  if (eq >= 0) t = t.slice(eq + 1);
  if (!/^[\w.@+/-]+$/.test(t) || t.startsWith('//') || t.includes('//')) return null;
  return t;
}

function pathThing(token: string): Extract<NamedThing, { kind: 'path' }> | null {
  const leadingSlash = token.startsWith('/');
  const dotted = token.startsWith('./');
  const folder = token.endsWith('/');
  const segments = token.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.includes('..')) return null;
  const top = segments[0]!;
  if (segments.every((s) => /^[\d.,%x+-]*$/.test(s))) return null; // 1/2, 24/7, 12/31/2024
  if (segments.every((s) => s.length <= 1)) return null; // n/a, w/, I/O
  if (segments.every((s) => /^\.\w+$/.test(s)) && segments.length > 1) return null; // .ts/.tsx
  if (segments.some((s) => LIBRARY_NAMES.test(s))) return null;
  if (REF_TOPS.has(top) || top === 'localhost' || isDomain(top)) return null;
  if (leadingSlash && MOUNT_TOPS.has(top)) return null;
  // `/health`, `/compact`: a route or a slash command, not a file.
  if (leadingSlash && segments.length === 1 && !folder && !hasExtension(top)) return null;
  const path = segments.join('/') + (folder ? '/' : '');
  const strong = hasExtension(segments[segments.length - 1]!) || dotted || (folder && segments.every((s) => s.length > 1));
  return { kind: 'path', path, weak: !strong || (leadingSlash && SYSTEM_TOPS.has(top)) };
}

/** Files named without an extension that are still plainly files. */
const FILE_NAMES = /(^|\/)(Dockerfile|Containerfile|Makefile|GNUmakefile|[Jj]ustfile|Gemfile|Rakefile|Procfile|Vagrantfile|Jenkinsfile|Brewfile|CODEOWNERS|LICENSE|README|CHANGELOG)$/;

function hasExtension(name: string): boolean {
  return /[^/]\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(name) || /(^|\/)\.[A-Za-z][\w.-]*$/.test(name) || FILE_NAMES.test(name);
}

function isDomain(segment: string): boolean {
  const labels = segment.toLowerCase().split('.');
  return labels.length >= 2 && labels.every((l) => /^[a-z0-9-]+$/.test(l)) && TLDS.has(labels[labels.length - 1]!);
}
