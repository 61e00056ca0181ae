// A PDF's text, page by page, for a model that does not take PDF input (SPEC §12).
//
// unpdf rather than pdfjs-dist directly: unpdf ships pdf.js as one serverless build that
// runs in the calling thread (no worker, no canvas), maintained by the UnJS team and
// tracking pdf.js releases. pdfjs-dist also runs in Node, but starts a "fake worker" by
// importing pdf.worker.mjs from beside itself at run time, a path a bundle or an asar
// must keep; it stays a devDependency for the window's viewer.

import type { getDocumentProxy as getDocumentProxyType } from 'unpdf';

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
      return text.replace(/[ \t]+$/gm, '').trim();
    },
    close: () => pdf.loadingTask.destroy(),
  };
}

function pdfError(err: unknown): string {
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  if (name === 'PasswordException') return 'the PDF is encrypted with a password';
  return message.replace(/\.$/, '') || 'the PDF could not be parsed';
}
