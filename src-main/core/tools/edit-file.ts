import { z } from 'zod';
import { boolArg, checkPath, pathArg } from './args';
import { withPathLock } from './path-lock';
import { changeRefusedBeforeAsking } from './change-precheck';
import { applyEdit } from '../backends/text';
import { describeChange, fileText } from './file-change';
import { defineTool, errorText, text } from './tool';
import { proposedNotice } from '../memories/memory-types';

const schema = z.object({
  file_path: pathArg('file_path'),
  old_string: z.string({ error: 'old_string must be a string' }),
  new_string: z.string({ error: 'new_string must be a string' }),
  replace_all: boolArg('replace_all').optional(),
});

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace exact text in a file you have read. old_string must match exactly (whitespace too; copy it from read_file without the line-number prefix) and only once, unless replace_all is true.',
  schema,
  async precheck(args, ctx) {
    const checked = checkPath(args.file_path);
    if ('error' in checked) return checked.error;
    if (args.old_string === args.new_string) return 'old_string and new_string are identical; nothing to change';
    const refused = await changeRefusedBeforeAsking(ctx, checked.path, 'edit');
    if (refused !== undefined) return refused;
    // Would the edit apply to the file as it is now? (The backend decides again when it runs.)
    const raw = await ctx.backend.readRaw(checked.path);
    if (raw.error !== undefined) return raw.error;
    const content = Buffer.from(raw.data ?? new Uint8Array()).toString('utf8');
    const outcome = applyEdit(content, args.old_string, args.new_string, args.replace_all ?? false);
    return outcome.ok ? undefined : outcome.error;
  },
  async run(args, ctx) {
    const checked = checkPath(args.file_path);
    if ('error' in checked) return errorText(checked.error);
    if (args.old_string === args.new_string) return errorText('old_string and new_string are identical; nothing to change');
    return withPathLock(ctx.backend, checked.path, async () => {
      const refusal = await ctx.guard.check(ctx.backend, checked.path, 'edit');
      if (refusal !== null) return errorText(refusal);
      const before = await fileText(ctx.backend, checked.path);
      const result = await ctx.backend.edit(checked.path, args.old_string, args.new_string, args.replace_all ?? false);
      if (result.error !== undefined) return errorText(result.error);
      const path = result.path ?? checked.path;
      await ctx.guard.remember(ctx.backend, path);
      const change = describeChange(path, before, await fileText(ctx.backend, path));
      if (result.proposed) return { ...text(proposedNotice(path)), proposedMemory: path, ...(change ? { change } : {}) };
      return { ...text(`Successfully replaced ${result.occurrences ?? 1} instance(s) of the string in '${path}'`), ...(change ? { change } : {}) };
    });
  },
});
