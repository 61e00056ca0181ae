// A PDF's text, page by page, for a model that does not take PDF input (SPEC §12).
//
// unpdf rather than pdfjs-dist directly: unpdf ships pdf.js as one serverless build that
// runs in the calling thread (no worker, no canvas), maintained by the UnJS team and
// tracking pdf.js releases. pdfjs-dist also runs in Node, but starts a "fake worker" by
// importing pdf.worker.mjs from beside itself at run time, a path a bundle or an asar
// must keep; it stays a devDependency for the window's viewer.

import type { getDocumentProxy as getDocumentProxyType } from 'unpdf';
import { ByteBudget, inflateWithin } from './inflate-budget';
import { trimLineEnds } from '../text/trim-line-ends';

/**
 * What a PDF's Flate streams may unpack to, all together, before pdf.js is given it: pdf.js
 * inflates a stream whole when it reads it, so a 1 MB file whose content stream inflates to
 * gigabytes would take that much memory, and it reads a page's content in one synchronous
 * go (~0.1 s a MB), so the budget bounds the time too. A 10 MB PDF of text and fonts
 * unpacks to far less; scans are mostly JPEG, CCITT or JBIG2, which are not counted.
 */
export const PDF_UNPACKED_BUDGET_BYTES = 64 * 1024 * 1024;

/** Pages of a document read on demand: only the pages a read shows are extracted. */
export interface PagedText {
  readonly pageCount: number;
  /** The text of page `n` (1-based), lines kept. */
  pageText(n: number): Promise<string>;
  close(): Promise<void>;
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxyType>>;

/** Opens a PDF's text, or the reason it is not a readable PDF. */
export async function openPdfText(bytes: Uint8Array): Promise<PagedText | { error: string }> {
  // Loaded on first use: pdf.js is 1.6 MB, and most sessions never read a PDF.
  if (!flateStreamsWithin(bytes, new ByteBudget(PDF_UNPACKED_BUDGET_BYTES))) {
    return { error: `it unpacks to more than ${PDF_UNPACKED_BUDGET_BYTES / (1024 * 1024)} MB` };
  }
  const { getDocumentProxy } = await import('unpdf');
  let pdf: PdfDocument;
  try {
    // pdf.js takes the buffer over: give it a copy. verbosity 0: its warnings go to
    // console.log, which is the `deepdesk tools` protocol stream.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (err) {
    return { error: pdfError(err) };
  }
  return {
    pageCount: pdf.numPages,
    async pageText(n) {
      const content = await (await pdf.getPage(n)).getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      return trimLineEnds(text).trim();
    },
    close: () => pdf.loadingTask.destroy(),
  };
}

/** Whether every Flate stream of the file, inflated (only counted), stays within `budget`. */
function flateStreamsWithin(bytes: Uint8Array, budget: ByteBudget): boolean {
  for (const data of pdfStreams(bytes)) {
    if (inflateWithin(data, budget, { zlib: true, keep: false }).status === 'over-budget') return false;
  }
  return true;
}

/** The data of each `stream … endstream` of a PDF, found by indexOf (streams that are not Flate simply do not inflate). */
export function* pdfStreams(bytes: Uint8Array): Generator<Uint8Array> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  for (let at = text.indexOf('stream'); at >= 0; at = text.indexOf('stream', at + 6)) {
    if (text.startsWith('end', at - 3)) continue;
    let from = at + 6;
    if (text[from] === '\r') from++;
    if (text[from] !== '\n') continue;
    from++;
    const to = text.indexOf('endstream', from);
    if (to < 0) return;
    yield bytes.subarray(from, to);
    at = to + 3;
  }
}

function pdfError(err: unknown): string {
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  if (name === 'PasswordException') return 'the PDF is encrypted with a password';
  return message.replace(/\.$/, '') || 'the PDF could not be parsed';
}
