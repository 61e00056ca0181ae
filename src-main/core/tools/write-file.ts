import { z } from 'zod';
import { checkPath, pathArg } from './args';
import { describeChange, fileText } from './file-change';
import { withPathLock } from './path-lock';
import { changeRefusedBeforeAsking } from './change-precheck';
import { defineTool, errorText, text } from './tool';
import { proposedNotice } from '../memories/memory-types';

const schema = z.object({
  file_path: pathArg('file_path'),
  content: z.string({ error: 'content must be a string (the whole new file text)' }),
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Create a file or replace its whole content (parent folders are made). An existing file must be read first; to change part of one, use edit_file.',
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
      if (result.proposed) return { ...text(proposedNotice(path)), proposedMemory: path, ...(change ? { change } : {}) };
      return { ...text(`Updated file ${path}`), ...(change ? { change } : {}) };
    });
  },
});
