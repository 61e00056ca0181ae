import { z } from 'zod';
import { checkPath, pathArg } from './args';
import { defineTool, errorText, text } from './tool';

const schema = z.object({ path: pathArg('path').optional() });

export const lsTool = defineTool({
  name: 'ls',
  description: [
    'List the immediate contents of a folder (not recursive). Paths are virtual: `/` is the project folder; /memories/ holds your long-term memories.',
    'Each line is `/path/ (directory)` or `/path/file (N bytes)`, sorted. An empty folder gives `No files found`.',
    'Use glob to find files by name pattern across many folders, and grep to find text.',
  ].join('\n'),
  schema,
  async run(args, ctx) {
    const checked = checkPath(args.path ?? '/');
    if ('error' in checked) return errorText(checked.error);
    const result = await ctx.backend.ls(checked.path);
    if (result.error !== undefined) return errorText(result.error);
    const entries = result.entries ?? [];
    if (entries.length === 0) return text('No files found');
    return text(entries.map((e) => (e.isDir ? `${e.path} (directory)` : `${e.path} (${e.size ?? 0} bytes)`)).join('\n'));
  },
});
