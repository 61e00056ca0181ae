import { z } from 'zod';
import { checkPath, pathArg } from './args';
import { describeChange, fileText } from './file-change';
import { withPathLock } from './path-lock';
import { changeRefusedBeforeAsking } from './change-precheck';
import { defineTool, errorText, text } from './tool';

const schema = z.object({
  file_path: pathArg('file_path'),
  content: z.string({ error: 'content must be a string (the whole new file text)' }),
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description: [
    'Create a file, or replace an existing file\'s entire content. Parent folders are created as needed.',
    'An existing file must have been read with read_file first (and be unchanged since), otherwise the write is refused.',
    'For changes to part of an existing file prefer edit_file: it is safer and cheaper. The file keeps its line-ending style (CRLF files stay CRLF).',
    'Files under /memories/ persist across conversations; /large_tool_results/ and /conversation_history/ belong to this thread.',
    'Returns `Updated file /path`.',
  ].join('\n'),
  schema,
  async precheck(args, ctx) {
    const checked = checkPath(args.file_path);
    if ('error' in checked) return checked.error;
    return changeRefusedBeforeAsking(ctx, checked.path, 'overwrite');
  },
  async run(args, ctx) {
    const checked = checkPath(args.file_path);
    if ('error' in checked) return errorText(checked.error);
    return withPathLock(ctx.backend, checked.path, async () => {
      const refusal = await ctx.guard.check(ctx.backend, checked.path, 'overwrite');
      if (refusal !== null) return errorText(refusal);
      const before = await fileText(ctx.backend, checked.path);
      const result = await ctx.backend.write(checked.path, args.content);
      if (result.error !== undefined) return errorText(result.error);
      const path = result.path ?? checked.path;
      await ctx.guard.remember(ctx.backend, path);
      const change = describeChange(path, before, await fileText(ctx.backend, path));
      return { ...text(`Updated file ${path}`), ...(change ? { change } : {}) };
    });
  },
});
