// PDFs for the file viewer: pdf.js loaded when the first PDF opens (it is large), its
// worker a file of the app's own (CSP worker-src 'self').

import type * as PdfJs from 'pdfjs-dist';
import type { PDFDocumentProxy } from 'pdfjs-dist';
// Vite copies the worker next to the app and gives its URL.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

let loading: Promise<typeof PdfJs> | null = null;

function pdfjs(): Promise<typeof PdfJs> {
  loading ??= import('pdfjs-dist').then((lib) => {
    lib.GlobalWorkerOptions.workerSrc = workerUrl;
    return lib;
  });
  return loading;
}

export interface OpenedPdf {
  doc: PDFDocumentProxy;
  /** Frees the document and its worker. */
  close(): void;
}

/** Opens a PDF from its bytes (base64). */
export async function openPdf(base64: string): Promise<OpenedPdf> {
  const lib = await pdfjs();
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const task = lib.getDocument({ data: bytes });
  const doc = await task.promise;
  return { doc, close: () => void task.destroy() };
}
