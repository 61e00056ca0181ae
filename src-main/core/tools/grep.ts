import { z } from 'zod';
import { DEFAULT_GREP_MAX_COUNT, type GrepMatch } from '../backends/protocol';
import { checkPath, intArg, pathArg } from './args';
import { READ_ROW_CHARS } from './read-file';
import { defineTool, errorText, text } from './tool';

const schema = z.object({
  pattern: z.string({ error: 'pattern must be a string' }).min(1, 'pattern must not be empty'),
  path: pathArg('path').optional(),
  glob: z.string({ error: 'glob must be a string such as *.ts' }).optional(),
  output_mode: z.enum(['files_with_matches', 'content', 'count'], { error: 'output_mode must be files_with_matches, content or count' }).optional(),
  max_count: intArg('max_count', 1).optional(),
});

const REGEX_HINTS = /\.\*|\.\+|\\[.dDwWsSbB()[\]{}|^$*+?]|\||\(\?|\[[^\]]+\]|^\^|\$$/;

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search files for literal, case-sensitive text (not a regex). path: a folder or a file; glob filters files (`*.ts`). output_mode: files_with_matches (default), content (matching lines, numbered) or count. Skips .git/, gitignored and binary files.',
  schema,
  async run(args, ctx) {
    const checked = checkPath(args.path ?? '/');
    if ('error' in checked) return errorText(checked.error);
    const maxCount = args.max_count ?? DEFAULT_GREP_MAX_COUNT;
    const result = await ctx.backend.grep(args.pattern, checked.path, args.glob, maxCount);
    if (result.error !== undefined) return errorText(result.error);
    const matches = result.matches ?? [];
    if (matches.length === 0) {
      const hint = REGEX_HINTS.test(args.pattern)
        ? '\nNote: grep searches for the literal text you give; regular-expression syntax is not interpreted. Search for a plain fragment of the text instead.'
        : '';
      return { ...text(`No matches found${hint}`), gist: { kind: 'grep', matches: 0, files: 0, truncated: false } };
    }
    const body = formatMatches(matches, args.output_mode ?? 'files_with_matches', args.pattern);
    const note = result.truncated
      ? `\n[Results truncated at ${maxCount} matching lines. Narrow the search with a more specific pattern, a path or a glob, or raise max_count.]`
      : '';
    const files = new Set(matches.map((m) => m.path)).size;
    return { ...text(body + note), gist: { kind: 'grep', matches: matches.length, files, truncated: result.truncated === true } };
  },
});

function formatMatches(matches: GrepMatch[], mode: 'files_with_matches' | 'content' | 'count', pattern: string): string {
  const byFile = new Map<string, GrepMatch[]>();
  for (const m of matches) {
    const list = byFile.get(m.path);
    if (list) list.push(m);
    else byFile.set(m.path, [m]);
  }
  const files = [...byFile.keys()];
  if (mode === 'files_with_matches') return files.join('\n');
  if (mode === 'count') return files.map((f) => `${f}: ${byFile.get(f)!.length}`).join('\n');
  const out: string[] = [];
  for (const f of files) {
    out.push(`${f}:`);
    for (const m of byFile.get(f)!) out.push(`  ${m.line}: ${aroundMatch(m.text, pattern)}`);
  }
  return out.join('\n');
}

/** A matching line as content mode shows it: whole, or a window of a read row's width around the match when it is longer. */
function aroundMatch(line: string, pattern: string): string {
  if (line.length <= READ_ROW_CHARS) return line;
  const at = Math.max(0, line.indexOf(pattern));
  let from = Math.max(0, Math.min(at - Math.floor((READ_ROW_CHARS - pattern.length) / 2), line.length - READ_ROW_CHARS));
  let to = from + READ_ROW_CHARS;
  // Never split a surrogate pair at either end.
  if (/[\uDC00-\uDFFF]/.test(line[from] ?? '')) from++;
  if (/[\uD800-\uDBFF]/.test(line[to - 1] ?? '')) to--;
  const shown = `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
  return `${shown} [line of ${line.length.toLocaleString('en-US')} characters, cut around the match]`;
}
