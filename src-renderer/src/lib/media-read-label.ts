// What a read of a file that is not text came back as, for its card's one line
// (`Read spec.pdf · 2 pages`): the pages or slides of a document, an image's pixels, a
// sound's length, or that it was not shown. Said from the facts read_file counted (its
// result's `gist`, src-main/core/tools/read-media.ts), never from its words; undefined for
// a read of text.

import type { ResultGistDto } from '../../../src-main/app/contract';

export function mediaReadLabel(gist: ResultGistDto): string | undefined {
  switch (gist.kind) {
    case 'document-text':
      if (gist.noTextLayer === true) return `${plural(gist.total, gist.unit)}, no text layer`;
      return gist.to < gist.total && gist.total > 0 ? `${gist.unit}s ${gist.from}–${gist.to} of ${gist.total}` : plural(gist.total, gist.unit);
    case 'media': {
      const holds = gist.holds;
      if (holds === undefined) return gist.media;
      if ('pages' in holds) return plural(holds.pages, 'page');
      if ('seconds' in holds) return `${gist.media} ${holds.seconds} s`;
      return `${gist.media} ${holds.width}×${holds.height}`;
    }
    case 'media-not-taken':
      return `${gist.media}, not shown to this model`;
    case 'binary':
      return 'binary, not shown as text';
    default:
      return undefined;
  }
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
