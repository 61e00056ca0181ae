// Rewrites a glob for a mounted backend. When a search folder lies above a mount, an
// anchored pattern such as `memories/**/*.md` is relative to the search folder, but the
// mounted backend matches relative to its own root; this strips the mount's leading
// folders from the pattern (following `**`, classes, dot rules) so the results are exactly
// the files the pattern selects.

import { compileGlob, expandBraces } from '../filesystem/glob-match';

/**
 * Patterns that select, relative to the mounted backend's root, the files `pattern`
 * selects relative to a folder `mountRel` above it (e.g. `memories` or `a/b`). Empty when
 * no file below the mount can match.
 */
export function globBelowMount(pattern: string, mountRel: string): string[] {
  const parts = mountRel.split('/').filter((s) => s !== '');
  const out = new Set<string>();
  for (const alternative of expandBraces(pattern.replaceAll('\\', '/'))) {
    const anchored = alternative.startsWith('/') || alternative.replace(/\/+$/, '').includes('/');
    // A bare name pattern matches the file name at any depth, wherever the root is.
    if (!anchored) {
      out.add(alternative);
      continue;
    }
    const body = alternative.replace(/^\/+/, '').replace(/\/+$/, '');
    const segments = body.split('/').filter((s) => s !== '' && s !== '.');
    for (const rest of residuals(segments, 0, parts, 0)) out.add('/' + segments.slice(rest).join('/'));
  }
  return [...out];
}

/** Indexes into `segments` where matching can continue once every part has been consumed. */
function residuals(segments: string[], si: number, parts: string[], pi: number, found = new Set<number>()): Set<number> {
  if (pi === parts.length) {
    if (si < segments.length) found.add(si);
    return found;
  }
  if (si === segments.length) return found;
  const segment = segments[si]!;
  const part = parts[pi]!;
  if (segment === '**') {
    residuals(segments, si + 1, parts, pi, found);
    if (!part.startsWith('.')) residuals(segments, si, parts, pi + 1, found);
  } else if (compileGlob(segment).matches(part)) {
    residuals(segments, si + 1, parts, pi + 1, found);
  }
  return found;
}
