// The regex-based glob matcher this project used before issue 9 §5, kept only as the
// reference the linear-time matcher is compared against (on inputs small enough for it).
import type { GlobMatcher } from '../glob-match';
type Segment = { kind: 'globstar' } | { kind: 'name'; re: RegExp; literal: string | null };

export function referenceCompileGlob(pattern: string): GlobMatcher {
  const alternatives = expandBraces(pattern.replaceAll('\\', '/')).map(compileOne);
  return {
    matches: (rel) => alternatives.some((m) => m.matches(rel)),
    mayMatchBelow: (relDir) => alternatives.some((m) => m.mayMatchBelow(relDir)),
  };
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
  const segments = body.split('/').filter((s) => s !== '' && s !== '.').map(compileSegment);
  return {
    matches: (rel) => matchSegments(segments, 0, splitRel(rel), 0, false),
    mayMatchBelow: (relDir) => matchSegments(segments, 0, splitRel(relDir), 0, true),
  };
}

function splitRel(rel: string): string[] {
  return rel === '' ? [] : rel.split('/');
}

function matchName(seg: Segment, name: string): boolean {
  if (seg.kind === 'globstar') return !name.startsWith('.');
  return seg.literal !== null ? seg.literal === name : seg.re.test(name);
}

/** With `prefixOnly`, succeeds when `parts` could be the leading folders of a match. */
function matchSegments(segs: Segment[], si: number, parts: string[], pi: number, prefixOnly: boolean): boolean {
  for (;;) {
    if (pi === parts.length) {
      if (prefixOnly) return si < segs.length;
      return segs.slice(si).every((s) => s.kind === 'globstar');
    }
    if (si === segs.length) return false;
    const seg = segs[si]!;
    if (seg.kind === 'globstar') {
      // Zero names, or consume one name that is not a dot-name and stay on `**`.
      if (matchSegments(segs, si + 1, parts, pi, prefixOnly)) return true;
      if (parts[pi]!.startsWith('.')) return false;
      pi++;
      continue;
    }
    if (!matchName(seg, parts[pi]!)) return false;
    si++;
    pi++;
  }
}

function compileSegment(text: string): Segment {
  if (text === '**') return { kind: 'globstar' };
  let re = '';
  let literal = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '*') {
      literal = false;
      while (text[i + 1] === '*') i++;
      re += '[^/]*';
    } else if (c === '?') {
      literal = false;
      re += '[^/]';
    } else if (c === '[') {
      const close = findClassEnd(text, i);
      if (close < 0) {
        re += '\\[';
        continue;
      }
      literal = false;
      let inner = text.slice(i + 1, close);
      let negate = false;
      if (inner.startsWith('!') || inner.startsWith('^')) {
        negate = true;
        inner = inner.slice(1);
      }
      const escaped = inner.replace(/[\\\]^]/g, (m) => `\\${m}`).replace(/\\\\-/g, '-');
      re += negate ? `[^/${escaped}]` : `[${escaped}]`;
      i = close;
    } else {
      re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  if (literal) return { kind: 'name', re: /^$/, literal: text };
  // Shell rule: a leading dot must be matched by a literal dot.
  const guard = text.startsWith('.') ? '' : '(?!\\.)';
  return { kind: 'name', re: new RegExp(`^${guard}${re}$`, 'u'), literal: null };
}

function findClassEnd(text: string, open: number): number {
  let i = open + 1;
  if (text[i] === '!' || text[i] === '^') i++;
  if (text[i] === ']') i++;
  for (; i < text.length; i++) if (text[i] === ']') return i;
  return -1;
}

/** `a{b,c{d,e}}f` → [abf, acdf, acef]; unbalanced braces stay literal. */
function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf('{');
  if (open < 0) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) {
        close = i;
        break;
      }
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close < 0) return [pattern];
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  if (commas.length === 0) {
    return expandBraces(tail).map((t) => `${head}{${pattern.slice(open + 1, close)}}${t}`);
  }
  const bounds = [open, ...commas, close];
  const out: string[] = [];
  for (let k = 0; k < bounds.length - 1; k++) {
    const choice = pattern.slice(bounds[k]! + 1, bounds[k + 1]);
    for (const expanded of expandBraces(head + choice + tail)) out.push(expanded);
  }
  return out;
}
