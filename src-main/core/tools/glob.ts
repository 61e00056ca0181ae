import { z } from 'zod';
import { checkPath, pathArg } from './args';
import { defineTool, errorText, text } from './tool';

const schema = z.object({
  pattern: z.string({ error: 'pattern must be a string such as **/*.ts' }).min(1, 'pattern must not be empty'),
  path: pathArg('path').optional(),
});

export const globTool = defineTool({
  name: 'glob',
  description:
    'Find files by name pattern. `*.ts` matches at any depth; a pattern with `/` is relative to path (`src/**/*.ts`); `/*.ts` matches only at its top. `*` skips dot files (`.*` finds them). Skips .git/ and gitignored files.',
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
    return { ...text(lines.length === 0 ? 'No files found' : lines.join('\n')), gist: { kind: 'glob', files: matches.length, truncated: result.truncated === true } };
  },
});
