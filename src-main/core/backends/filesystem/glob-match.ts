// Glob patterns with the semantics of SPEC §3 (glob), shared by every backend so
// results are identical everywhere:
// - a pattern without `/` matches the file name at any depth (dot-folders included);
// - a pattern with `/` matches the path relative to the search folder; a leading `/`
//   anchors there too;
// - `**` matches zero or more folders but never descends into a dot-folder;
// - `*`, `?` and `[...]` never match a name's leading dot; `{a,b}`, `[!...]` work.

export interface GlobMatcher {
  /** Tests a path relative to the search folder, without a leading `/`. */
  matches(relPath: string): boolean;
  /** False when no file below this relative folder can match (lets walkers prune). */
  mayMatchBelow(relDir: string): boolean;
}

type Segment = { kind: 'globstar' } | { kind: 'name'; match: (name: string) => boolean };

/** Bounds that keep one pattern from costing more than a search (issue 9 §5). */
export const MAX_BRACE_ALTERNATIVES = 1000;
export const MAX_BRACE_DEPTH = 10;
const MAX_BRACE_GROUPS = 256;
/** Steps taken by every expansion and match so far: the tests bound hostile patterns' work by it, not by time. */
export const globWork = { steps: 0 };

/** A pattern that cannot be used; the message is written for the agent. */
export class GlobPatternError extends Error {}

const compiledGlobs = new Map<string, GlobMatcher>();

/** Throws GlobPatternError for a pattern past the brace bounds. */
export function compileGlob(pattern: string): GlobMatcher {
  const cached = compiledGlobs.get(pattern);
  if (cached !== undefined) return cached;
  const alternatives = expandBraces(pattern.replaceAll('\\', '/')).map(compileOne);
  const matcher: GlobMatcher =
    alternatives.length === 1
      ? alternatives[0]!
      : {
          matches: (rel) => alternatives.some((m) => m.matches(rel)),
          mayMatchBelow: (relDir) => alternatives.some((m) => m.mayMatchBelow(relDir)),
        };
  if (compiledGlobs.size >= 256) compiledGlobs.clear();
  compiledGlobs.set(pattern, matcher);
  return matcher;
}

/** The GlobPatternError message for an unusable pattern, else null. */
export function globPatternError(pattern: string): string | null {
  try {
    compileGlob(pattern);
    return null;
  } catch (err) {
    if (err instanceof GlobPatternError) return err.message;
    throw err;
  }
}

/**
 * The folder, relative to the search folder ('' for itself), that holds every match of
 * the pattern: its leading literal folders (`notes/2024/*.md` → `notes/2024`), so a
 * backend can read that folder's range instead of everything below the search folder.
 */
export function literalFolderOf(pattern: string): string {
  const alternatives = expandBraces(pattern.replaceAll('\\', '/'));
  if (alternatives.length !== 1) return '';
  const only = alternatives[0]!;
  const anchored = only.startsWith('/') || only.replace(/\/+$/, '').includes('/');
  if (!anchored) return '';
  const segments = only.replace(/^\/+/, '').replace(/\/+$/, '').split('/').filter((s) => s !== '' && s !== '.');
  const folders: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (/[*?[\]{}]/.test(segment)) break;
    folders.push(segment);
  }
  return folders.join('/');
}

function compileOne(pattern: string): GlobMatcher {
  const anchored = pattern.startsWith('/') || pattern.replace(/\/+$/, '').includes('/');
  const body = pattern.replace(/^\/+/, '').replace(/\/+$/, '');
  if (!anchored) {
    const seg = compileSegment(body);
    return {
      matches: (rel) => matchName(seg, rel.slice(rel.lastIndexOf('/') + 1)),
      mayMatchBelow: () => true,
    };
  }
  // `**/**` is `**`: collapsing runs keeps hostile patterns from multiplying the work.
  const segments = body
    .split('/')
    .filter((s, i, all) => s !== '' && s !== '.' && !(s === '**' && all[i - 1] === '**'))
    .map(compileSegment);
  // With at most one `**` there is nothing to retry, so no memo is needed.
  const memo = segments.filter((s) => s.kind === 'globstar').length > 1;
  const last = segments[segments.length - 1];
  // A file's name can only be matched by the last segment: a cheap test that rejects most paths.
  const lastName = last?.kind === 'name' ? last.match : null;
  if (lastName !== null && segments.length === 2 && segments[0]!.kind === 'globstar') {
    // `**/name`, the usual form: `**` takes every folder, and it must not take a dot-folder.
    return {
      matches: (rel) => {
        const slash = rel.lastIndexOf('/');
        return lastName(rel.slice(slash + 1)) && (slash < 0 || !hasDotName(rel, slash));
      },
      mayMatchBelow: (relDir) => !hasDotName(relDir, relDir.length),
    };
  }
  return {
    matches: (rel) =>
      (lastName === null || lastName(rel.slice(rel.lastIndexOf('/') + 1))) && matchSegments(segments, 0, splitRel(rel), 0, false, memo ? new Set() : null),
    mayMatchBelow: (relDir) => matchSegments(segments, 0, splitRel(relDir), 0, true, memo ? new Set() : null),
  };
}

/** Whether a '/'-separated name in `rel` before offset `end` starts with a dot. */
function hasDotName(rel: string, end: number): boolean {
  if (end > 0 && rel.charCodeAt(0) === 0x2e) return true;
  const dot = rel.indexOf('/.');
  return dot >= 0 && dot + 1 < end;
}

function splitRel(rel: string): string[] {
  return rel === '' ? [] : rel.split('/');
}

function matchName(seg: Segment, name: string): boolean {
  if (seg.kind === 'globstar') return !name.startsWith('.');
  return seg.match(name);
}

/**
 * With `prefixOnly`, succeeds when `parts` could be the leading folders of a match.
 * Failed (segment, part) states are remembered in `failed` (needed from two `**` on), so
 * `**` runs in O(segments × parts).
 */
function matchSegments(segs: Segment[], si: number, parts: string[], pi: number, prefixOnly: boolean, failed: Set<number> | null): boolean {
  if (failed === null) return matchFrom(segs, si, parts, pi, prefixOnly, failed);
  const start = si * (parts.length + 1) + pi;
  if (failed.has(start)) return false;
  const matched = matchFrom(segs, si, parts, pi, prefixOnly, failed);
  if (!matched) failed.add(start);
  return matched;
}

function matchFrom(segs: Segment[], si: number, parts: string[], pi: number, prefixOnly: boolean, failed: Set<number> | null): boolean {
  for (;;) {
    globWork.steps++;
    if (pi === parts.length) {
      if (prefixOnly) return si < segs.length;
      for (; si < segs.length; si++) if (segs[si]!.kind !== 'globstar') return false;
      return true;
    }
    if (si === segs.length) return false;
    const seg = segs[si]!;
    if (seg.kind === 'globstar') {
      // Zero names, or consume one name that is not a dot-name and stay on `**`.
      if (matchSegments(segs, si + 1, parts, pi, prefixOnly, failed)) return true;
      if (parts[pi]!.startsWith('.')) return false;
      pi++;
      continue;
    }
    if (!matchName(seg, parts[pi]!)) return false;
    si++;
    pi++;
  }
}

/** One element of a name pattern: a literal code point, `?`, `*` or a class. */
type Token = { kind: 'char'; cp: number } | { kind: 'any' } | { kind: 'star' } | { kind: 'class'; negate: boolean; ranges: [number, number][] };

function compileSegment(text: string): Segment {
  if (text === '**') return { kind: 'globstar' };
  const tokens: Token[] = [];
  let literal = true;
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '*') {
      literal = false;
      while (chars[i + 1] === '*') i++;
      tokens.push({ kind: 'star' });
    } else if (c === '?') {
      literal = false;
      tokens.push({ kind: 'any' });
    } else if (c === '[') {
      const close = findClassEnd(chars, i);
      if (close < 0) {
        tokens.push({ kind: 'char', cp: c.codePointAt(0)! });
        continue;
      }
      literal = false;
      tokens.push(parseClass(chars.slice(i + 1, close)));
      i = close;
    } else {
      tokens.push({ kind: 'char', cp: c.codePointAt(0)! });
    }
  }
  if (literal) return { kind: 'name', match: (name) => name === text };
  // Shell rule: a leading dot must be matched by a literal dot.
  const dotGuard = !text.startsWith('.');
  const test = starredLiteralTest(tokens) ?? ((name: string) => matchTokens(tokens, name));
  return {
    kind: 'name',
    match: (name) => !(dotGuard && name.charCodeAt(0) === 0x2e) && test(name),
  };
}

/**
 * `*lit`, `lit*` and `*lit*` (the usual `*.ts`) as one string test. Only for a literal
 * without surrogates: then a match at a UTF-16 offset never splits a code point of the
 * name, so it agrees with matchTokens.
 */
function starredLiteralTest(tokens: readonly Token[]): ((name: string) => boolean) | null {
  const lead = tokens[0]?.kind === 'star';
  const trail = tokens.length > 1 && tokens[tokens.length - 1]!.kind === 'star';
  const middle = tokens.slice(lead ? 1 : 0, trail ? -1 : undefined);
  if (!lead && !trail) return null;
  const cps: number[] = [];
  for (const t of middle) {
    if (t.kind !== 'char' || (t.cp >= 0xd800 && t.cp <= 0xdfff)) return null;
    cps.push(t.cp);
  }
  const lit = String.fromCodePoint(...cps);
  if (lead && trail) return (name) => name.includes(lit);
  return lead ? (name) => name.endsWith(lit) : (name) => name.startsWith(lit);
}

function parseClass(inner: string[]): Token {
  let i = 0;
  let negate = false;
  if (inner[0] === '!' || inner[0] === '^') {
    negate = true;
    i = 1;
  }
  const ranges: [number, number][] = [];
  for (; i < inner.length; i++) {
    const lo = inner[i]!.codePointAt(0)!;
    if (inner[i + 1] === '-' && i + 2 < inner.length) {
      ranges.push([lo, inner[i + 2]!.codePointAt(0)!]);
      i += 2;
    } else {
      ranges.push([lo, lo]);
    }
  }
  return { kind: 'class', negate, ranges };
}

function tokenMatches(token: Token, cp: number): boolean {
  switch (token.kind) {
    case 'char':
      return token.cp === cp;
    case 'any':
      return true;
    case 'class':
      return token.ranges.some(([lo, hi]) => cp >= lo && cp <= hi) !== token.negate;
    case 'star':
      return false;
  }
}

/**
 * Wildcard matching without backtracking blow-up: on a mismatch only the last `*` is
 * retried one code point further, so a name of n code points and a pattern of m tokens
 * cost at most O(n × m), whatever the pattern (`*?*?*?…` included).
 */
function matchTokens(tokens: readonly Token[], name: string): boolean {
  // n and starN are UTF-16 offsets, always at a code point's start.
  let t = 0;
  let n = 0;
  let starT = -1;
  let starN = 0;
  while (n < name.length) {
    globWork.steps++;
    const token = tokens[t];
    const cp = name.codePointAt(n)!;
    if (token !== undefined && token.kind === 'star') {
      starT = t++;
      starN = n;
    } else if (token !== undefined && tokenMatches(token, cp)) {
      t++;
      n += cp > 0xffff ? 2 : 1;
    } else if (starT >= 0) {
      t = starT + 1;
      starN += name.codePointAt(starN)! > 0xffff ? 2 : 1;
      n = starN;
    } else {
      return false;
    }
  }
  while (t < tokens.length && tokens[t]!.kind === 'star') t++;
  return t === tokens.length;
}

function findClassEnd(text: readonly string[], open: number): number {
  let i = open + 1;
  if (text[i] === '!' || text[i] === '^') i++;
  if (text[i] === ']') i++;
  for (; i < text.length; i++) if (text[i] === ']') return i;
  return -1;
}

/**
 * `a{b,c{d,e}}f` → [abf, acdf, acef]; unbalanced braces stay literal. Throws
 * GlobPatternError past MAX_BRACE_ALTERNATIVES results or MAX_BRACE_DEPTH nesting, before
 * doing more work than that bound.
 */
export function expandBraces(pattern: string): string[] {
  const out: string[] = [];
  expandInto(pattern, out, 0);
  return out;
}

function tooMany(): GlobPatternError {
  return new GlobPatternError(`the pattern expands to more than ${MAX_BRACE_ALTERNATIVES} alternatives ({a,b} groups multiply); use fewer or simpler {…} groups`);
}

function expandInto(pattern: string, out: string[], depth: number): void {
  globWork.steps++;
  if (depth > MAX_BRACE_GROUPS) throw new GlobPatternError(`the pattern has more than ${MAX_BRACE_GROUPS} {…} groups`);
  const open = pattern.indexOf('{');
  let level = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; open >= 0 && i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '{') {
      level++;
      if (level > MAX_BRACE_DEPTH) throw new GlobPatternError(`the pattern nests {…} more than ${MAX_BRACE_DEPTH} deep`);
    } else if (c === '}') {
      level--;
      if (level === 0) {
        close = i;
        break;
      }
    } else if (c === ',' && level === 1) commas.push(i);
  }
  if (close < 0) {
    if (out.length >= MAX_BRACE_ALTERNATIVES) throw tooMany();
    out.push(pattern);
    return;
  }
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  if (commas.length === 0) {
    const rest: string[] = [];
    expandInto(tail, rest, depth + 1);
    for (const t of rest) {
      if (out.length >= MAX_BRACE_ALTERNATIVES) throw tooMany();
      out.push(`${head}{${pattern.slice(open + 1, close)}}${t}`);
    }
    return;
  }
  const bounds = [open, ...commas, close];
  for (let k = 0; k < bounds.length - 1; k++) {
    expandInto(head + pattern.slice(bounds[k]! + 1, bounds[k + 1]) + tail, out, depth + 1);
  }
}
