import { z } from 'zod';
import { checkPath, pathArg } from './args';
import { defineTool, errorText, text } from './tool';

const schema = z.object({ path: pathArg('path').optional() });

export const lsTool = defineTool({
  name: 'ls',
  description: 'List the entries of a folder (default `/`), not recursively.',
  schema,
  async run(args, ctx) {
    const checked = checkPath(args.path ?? '/');
    if ('error' in checked) return errorText(checked.error);
    const result = await ctx.backend.ls(checked.path);
    if (result.error !== undefined) return errorText(result.error);
    const entries = result.entries ?? [];
    const gist = { kind: 'ls', entries: entries.length } as const;
    if (entries.length === 0) return { ...text('No files found'), gist };
    return { gist, ...text(entries.map((e) => (e.isDir ? `${e.path} (directory)` : `${e.path}${e.mark !== undefined ? ` ${e.mark}` : ''} (${e.size ?? 0} bytes)`)).join('\n')) };
  },
});
