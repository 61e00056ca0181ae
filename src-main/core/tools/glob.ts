import { z } from 'zod';
import { checkPath, pathArg } from './args';
import { defineTool, errorText, text } from './tool';

const schema = z.object({
  pattern: z.string({ error: 'pattern must be a string such as **/*.ts' }).min(1, 'pattern must not be empty'),
  path: pathArg('path').optional(),
});

export const globTool = defineTool({
  name: 'glob',
  description: [
    'Find files by name pattern; returns matching file paths (files only), one a line, sorted, or `No files found`.',
    'A pattern without `/` matches file names at any depth (`*.py`). A pattern with `/` matches the path relative to `path` (default `/`); a leading `/` anchors it there (`/*.py` = top level only).',
    '`**` spans folders but does not enter dot-folders; `*` and `?` never match a leading dot (use `.*` for dot files); `{a,b}`, `[abc]` and `[!abc]` work.',
    ".git/ and files ignored by the folder's .gitignore files are skipped.",
  ].join('\n'),
  schema,
  async run(args, ctx) {
    const checked = checkPath(args.path ?? '/');
    if ('error' in checked) return errorText(checked.error);
    const result = await ctx.backend.glob(args.pattern, checked.path);
    if (result.error !== undefined) return errorText(result.error);
    const matches = result.matches ?? [];
    const lines = matches.map((m) => m.path);
    if (result.truncated) {
      lines.push('[Results truncated: the search stopped early. Narrow it with a more specific pattern or path.]');
    }
    return text(lines.length === 0 ? 'No files found' : lines.join('\n'));
  },
});
