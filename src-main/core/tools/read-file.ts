import { z } from 'zod';
import { checkPath, intArg, pathArg } from './args';
import { readMedia } from './read-media';
import { defineTool, errorText, text, type ToolOutput } from './tool';

export const READ_DEFAULT_LIMIT = 100;
export const READ_MAX_OUTPUT_CHARS = 80_000;
export const READ_ROW_CHARS = 5_000;

const schema = z.object({
  file_path: pathArg('file_path'),
  offset: intArg('offset', 0).optional(),
  limit: intArg('limit', 1).optional(),
});

export const readFileTool = defineTool({
  name: 'read_file',
  description: [
    'Read a file as numbered lines (number, tab, line).',
    `${READ_DEFAULT_LIMIT} lines by default: offset (0-based line) and limit pick others; when more remain, the output says which offset continues. A line over 5,000 characters is split into rows N.1, N.2, …`,
    'Images, audio, video and PDFs come back as media where you take that kind; otherwise PDFs, and .pptx always, come as text by pages.',
    'Read a file before editing or overwriting it.',
  ].join('\n'),
  schema,
  async run(args, ctx): Promise<ToolOutput> {
    const checked = checkPath(args.file_path);
    if ('error' in checked) return errorText(checked.error);
    const path = checked.path;
    const offset = args.offset ?? 0;
    const limit = args.limit ?? READ_DEFAULT_LIMIT;
    // Version before content: if the file changes in between, the guard errs on the safe side.
    const stat = await ctx.backend.stat(path);
    const result = await ctx.backend.read(path, offset, limit);
    if (result.error !== undefined) return errorText(result.error);
    const data = result.fileData;
    if (data === undefined) return errorText(`could not read ${path}`);
    if (stat.version !== undefined) ctx.guard.rememberVersion(path, stat.version);

    if (data.encoding === 'base64') {
      return readMedia({ path, file: data, mediaInput: ctx.mediaInput, offset, limit: args.limit, maxChars: READ_MAX_OUTPUT_CHARS });
    }
    const total = result.totalLines ?? 0;
    const wholeFileShown = offset === 0 && (result.endLine ?? 0) >= total;
    if (total === 0 || (wholeFileShown && data.content.trim() === '')) {
      return { ...text('System reminder: File exists but has empty contents'), gist: { kind: 'read-empty' } };
    }
    const window = numberedWindow(data.content, result.startLine ?? offset + 1, total);
    const memory = result.memoryVersion !== undefined ? { memory: { path, version: result.memoryVersion } } : {};
    return { ...text(window.text), gist: { kind: 'read', from: window.from, to: window.to, total }, ...memory };
  },
});

/** Room kept under the cap for the notes that may follow the rows. */
const NOTES_RESERVE = 300;

/** The window as text, and the file lines it shows (`from`–`to`, 1-based). */
function numberedWindow(content: string, startLine: number, totalLines: number): { text: string; from: number; to: number } {
  const lines = content.split('\n');
  const rows: string[] = [];
  let size = 0;
  let shown = 0;
  let cutNote = '';
  for (const line of lines) {
    const lineNumber = startLine + shown;
    // Every row adds at least its 7-character gutter: a line that cannot fit is never formatted.
    if (shown > 0 && size + line.length + 8 > READ_MAX_OUTPUT_CHARS) break;
    // The first line always shows, as many of its rows as fit (one huge line must not blow the cap).
    const numbered = numberLine(line, lineNumber, shown === 0 ? READ_MAX_OUTPUT_CHARS - NOTES_RESERVE : Infinity);
    if (shown > 0 && size + numbered.text.length + 1 > READ_MAX_OUTPUT_CHARS) break;
    rows.push(numbered.text);
    size += numbered.text.length + 1;
    shown++;
    if (numbered.chars < line.length) {
      cutNote = `\n[Line ${lineNumber} is longer than one read shows: only its first ${numbered.chars.toLocaleString('en-US')} characters are shown. Use grep to find text in it.]`;
      break;
    }
  }
  const lastLine = startLine + shown - 1;
  let out = rows.join('\n') + cutNote;
  if (lastLine < totalLines) {
    out += `\n\n[Showing lines ${startLine}-${lastLine} of ${totalLines}. Continue with offset=${lastLine}.]`;
  }
  return { text: out, from: startLine, to: lastLine };
}

/** The line as numbered rows, as many as fit in `budget` characters (at least one); `chars` is how much of the line they hold. */
function numberLine(line: string, lineNumber: number, budget: number): { text: string; chars: number } {
  if (line.length <= READ_ROW_CHARS) return { text: `${String(lineNumber).padStart(6)}\t${line}`, chars: line.length };
  const rows: string[] = [];
  let size = 0;
  let start = 0;
  for (let part = 0; start < line.length; part++) {
    let end = Math.min(line.length, start + READ_ROW_CHARS);
    // Never split a surrogate pair across two rows.
    if (end < line.length && /[\uD800-\uDBFF]/.test(line[end - 1]!)) end--;
    const label = part === 0 ? String(lineNumber) : `${lineNumber}.${part}`;
    const row = `${label.padStart(6)}\t${line.slice(start, end)}`;
    if (part > 0 && size + row.length + 1 > budget) break;
    rows.push(row);
    size += row.length + 1;
    start = end;
  }
  return { text: rows.join('\n'), chars: start };
}
