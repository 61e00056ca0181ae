// What a read of a file that is not text came back as, for its card's one line
// (`Read spec.pdf · 2 pages`): the pages or slides of a document, an image's pixels, a
// sound's length, or that it was not shown. Read from read_file's own result lines
// (src-main/core/tools/read-media.ts); undefined for a text file's read.

const KINDS = '(Image|Audio|Video|Document)';
/** `Document file /a.pdf (application/pdf, 12 KB)`, then what it holds, if anything. */
const MEDIA_LINE = new RegExp(`^${KINDS} file .+ \\([^()\\n]*, [^()\\n]*\\)(?:, ([^\\n]*))?$`);
/** A document read as its text: `…, 2 pages. This model…` or `…, 3 slides. Its text:`. */
const PAGED = /^Document file .+ \([^()\n]*, [^()\n]*\), (\d+) (page|slide)s?(\.| without a text layer)/;
const WINDOW = /\[Showing (pages|slides) (\d+)-(\d+) of (\d+)\./;
const NOT_TAKEN = new RegExp(`^\\[${KINDS.toLowerCase()} file .+: this model does not take \\w+ input\\]$`);
const BINARY = /^Binary file .+ cannot be shown as text\./;

export function mediaReadLabel(output: string): string | undefined {
  const paged = PAGED.exec(output);
  if (paged) {
    const [, n, unit, how] = paged;
    if (how !== '.') return `${plural(Number(n), unit!)}, no text layer`;
    const window = WINDOW.exec(output);
    return window ? `${window[1]} ${window[2]}–${window[3]} of ${window[4]}` : plural(Number(n), unit!);
  }
  const media = MEDIA_LINE.exec(output);
  if (media) {
    const kind = media[1]!.toLowerCase();
    const holds = media[2];
    if (holds === undefined) return kind;
    return /^\d+ pages?$/.test(holds) ? holds : `${kind} ${holds}`;
  }
  const notTaken = NOT_TAKEN.exec(output);
  if (notTaken) return `${notTaken[1]}, not shown to this model`;
  if (BINARY.test(output)) return 'binary, not shown as text';
  return undefined;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
