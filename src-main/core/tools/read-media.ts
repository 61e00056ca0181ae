// read_file of a binary file (SPEC §12): a media block when the run's model takes it, with
// a line naming the file and what it holds (`, 2 pages`, `, 800×600`, `, 3.5 s`); else a PDF's text, a PPTX's text (for every model: no provider
// takes PowerPoint) or §12's one-line notice; other binary files are described.

import type { FileData } from '../backends/protocol';
import { takesMedia } from '../media/capabilities';
import type { MediaInput } from '../models/types';
import {
  MAX_MEDIA_BYTES, PDF_MIME, PPT_MIME, PPTX_MIME, base64Bytes, formatSize, mediaLine, mediaTypeOfMime, notTakenNotice,
} from '../media/kinds';
import { imageSize, mp4Seconds, wavSeconds } from '../media/measure';
import { openPdfText, type PagedText } from '../media/pdf-text';
import { openPptxText } from '../media/pptx-text';
import type { MediaHolds } from './result-facts';
import { errorText, text, type ToolOutput } from './tool';

export interface MediaRead {
  path: string;
  file: FileData;
  mediaInput: MediaInput | undefined;
  /** Pages (or slides) to skip. */
  offset: number;
  /** Pages (or slides) to show; undefined: as many as fit in maxChars. */
  limit: number | undefined;
  /** The output cap (read_file's); pages are cut at a page boundary to stay under it. */
  maxChars: number;
}

export async function readMedia({ path, file, mediaInput, offset, limit, maxChars }: MediaRead): Promise<ToolOutput> {
  const mimeType = file.mimeType ?? 'application/octet-stream';
  const bytes = base64Bytes(file.content);
  if (bytes > MAX_MEDIA_BYTES) return errorText(`'${path}' is ${formatSize(bytes)} (${bytes} bytes); files over 10 MB (${MAX_MEDIA_BYTES} bytes) are not read`);
  const media = mediaTypeOfMime(mimeType);
  if (media === null) {
    return { ...text(`Binary file ${path} (${mimeType}, ${formatSize(bytes)}) cannot be shown as text. Use execute with a suitable converter if you need its contents.`), gist: { kind: 'binary' } };
  }
  const line = mediaLine(media.kind, path, mimeType, bytes);
  const paging = { offset, limit, maxChars };
  if (mimeType === PPTX_MIME) {
    const slides = openPptxText(Buffer.from(file.content, 'base64'));
    if ('error' in slides) return errorText(`'${path}' is ${slides.error}`);
    return pagedText(slides, 'slide', `${line}, ${count(slides.pageCount, 'slide')}. Its text:`, paging);
  }
  // No provider takes PowerPoint: a .ppt (binary, no text reader here) always gets the notice.
  if (mimeType !== PPT_MIME && takesMedia(mediaInput, mimeType)) {
    const holds = await measured(media.kind, mimeType, file.content);
    return {
      text: holds ? `${line}, ${holdsText(holds)}` : line,
      media: { kind: media.kind, mimeType, data: file.content, bytes, name: path },
      gist: { kind: 'media', media: media.kind, ...(holds ? { holds } : {}) },
    };
  }
  if (mimeType === PDF_MIME) return pdfText(path, file.content, line, bytes, paging);
  return { ...text(notTakenNotice(media.kind, path, bytes)), gist: { kind: 'media-not-taken', media: media.kind } };
}

/**
 * What a media file holds, read from its own bytes: a PDF's pages, an image's pixels, a
 * sound's or film's length; undefined when its header does not say (never a guess).
 */
async function measured(kind: string, mimeType: string, base64: string): Promise<MediaHolds | undefined> {
  const bytes = Buffer.from(base64, 'base64');
  if (mimeType === PDF_MIME) {
    const pdf = await openPdfText(bytes);
    if ('error' in pdf) return undefined;
    await pdf.close();
    return { pages: pdf.pageCount };
  }
  if (kind === 'image') {
    const size = imageSize(bytes);
    return size ? { width: size.width, height: size.height } : undefined;
  }
  const seconds = kind === 'audio' ? wavSeconds(bytes) : kind === 'video' ? mp4Seconds(bytes) : null;
  return seconds === null ? undefined : { seconds: seconds < 10 ? Number(seconds.toFixed(1)) : Math.round(seconds) };
}

/** What a media file holds as its line says it: `2 pages`, `800×600`, `3.5 s`. */
function holdsText(holds: MediaHolds): string {
  if ('pages' in holds) return count(holds.pages, 'page');
  if ('seconds' in holds) return `${holds.seconds} s`;
  return `${holds.width}×${holds.height}`;
}

interface Paging {
  offset: number;
  limit: number | undefined;
  maxChars: number;
}

async function pdfText(path: string, base64: string, line: string, bytes: number, paging: Paging): Promise<ToolOutput> {
  const pdf = await openPdfText(Buffer.from(base64, 'base64'));
  if ('error' in pdf) return errorText(`'${path}' is not a readable PDF: ${pdf.error}`);
  try {
    if (paging.offset === 0 && (await hasNoText(pdf))) {
      return {
        ...text(`${line}, ${count(pdf.pageCount, 'page')} without a text layer (scanned?): no text to show.\n${notTakenNotice('document', path, bytes)}`),
        gist: { kind: 'document-text', unit: 'page', total: pdf.pageCount, from: 0, to: 0, noTextLayer: true },
      };
    }
    return await pagedText(pdf, 'page', `${line}, ${count(pdf.pageCount, 'page')}. This model does not take PDF input; the PDF's text:`, paging);
  } catch (err) {
    return errorText(`'${path}' is not a readable PDF: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await pdf.close();
  }
}

/** Pages looked at for a text layer: a scan has none on its first pages either, and a document of 100,000 empty pages is not read through. */
const TEXT_LAYER_PAGES = 20;

async function hasNoText(doc: PagedText): Promise<boolean> {
  for (let n = 1; n <= Math.min(doc.pageCount, TEXT_LAYER_PAGES); n++) if ((await doc.pageText(n)) !== '') return false;
  return true;
}

const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/**
 * Pages `offset+1…` marked `--- page N ---`, as many as `limit` allows and fit in
 * `maxChars` (at least one: a page longer than the cap is cut and says so), then §3's
 * continue notice when pages remain.
 */
async function pagedText(doc: PagedText, unit: 'page' | 'slide', header: string, { offset, limit, maxChars }: Paging): Promise<ToolOutput> {
  const total = doc.pageCount;
  const units = `${unit}s`;
  if (total === 0) return { ...text(`${header}\n(no ${units})`), gist: { kind: 'document-text', unit, total: 0, from: 0, to: 0 } };
  if (offset >= total) return errorText(`${unit[0]!.toUpperCase()}${unit.slice(1)} offset ${offset} exceeds document length (${count(total, unit)})`);
  const last = limit === undefined ? total : Math.min(total, offset + limit);
  let out = header;
  let shown = offset;
  while (shown < last) {
    const n = shown + 1;
    const body = (await doc.pageText(n)) || '(no text)';
    const block = `\n--- ${unit} ${n} ---\n${body}`;
    if (out.length + block.length > maxChars) {
      if (shown > offset) break;
      let end = Math.max(0, maxChars - out.length);
      if (/[\uD800-\uDBFF]/.test(block[end - 1] ?? '')) end--;
      out += `${block.slice(0, end)}\n[${unit} ${n} is cut here: it is longer than ${maxChars} characters]`;
      shown = n;
      break;
    }
    out += block;
    shown = n;
  }
  if (shown < total) out += `\n\n[Showing ${units} ${offset + 1}-${shown} of ${total}. Continue with offset=${shown}.]`;
  return { ...text(out), gist: { kind: 'document-text', unit, total, from: offset + 1, to: shown } };
}
