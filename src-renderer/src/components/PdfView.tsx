// A PDF in the file viewer: each page drawn on a canvas named `Page N of M`, as it scrolls near.

import { useEffect, useRef, useState } from 'react';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { openPdf, type OpenedPdf } from '../lib/pdf-document';
import { Spinner } from './Icon';

/** Pages drawn at once before the person scrolls; the rest as they come into view. */
const FIRST_PAGES = 3;

function PdfPage({ doc, number }: { doc: PDFDocumentProxy; number: number }): React.JSX.Element {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [visible, setVisible] = useState(number <= FIRST_PAGES);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    const el = canvas.current;
    if (visible || el === null) return undefined;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setVisible(true);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [visible]);
  useEffect(() => {
    if (!visible) return undefined;
    let cancelled = false;
    let task: { cancel(): void; promise: Promise<void> } | null = null;
    void doc
      .getPage(number)
      .then((page) => {
        const el = canvas.current;
        if (cancelled || el === null) return;
        const viewport = page.getViewport({ scale: 1.5 });
        el.width = viewport.width;
        el.height = viewport.height;
        task = page.render({ canvas: el, viewport });
        return task.promise;
      })
      .catch((err: unknown) => {
        if (!cancelled && (err as { name?: string }).name !== 'RenderingCancelledException') setFailed(err instanceof Error ? err.message : String(err));
      });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [doc, number, visible]);
  const label = `Page ${number} of ${doc.numPages}`;
  return (
    <figure className="pdf-page">
      <canvas ref={canvas} role="img" aria-label={label} />
      <figcaption className="muted small">{failed ? `${label}: could not be drawn (${failed})` : label}</figcaption>
    </figure>
  );
}

export function PdfView({ path, data }: { path: string; data: string }): React.JSX.Element {
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let opened: OpenedPdf | null = null;
    setDoc(null);
    setError(null);
    openPdf(data)
      .then((pdf) => {
        opened = pdf;
        if (live) setDoc(pdf.doc);
        else pdf.close();
      })
      .catch((err: unknown) => {
        if (live) setError(err instanceof Error ? err.message : String(err));
      });
    return () => {
      live = false;
      opened?.close();
    };
  }, [data]);
  if (error !== null) return <p className="error-text viewer-note">This PDF could not be opened: {error}</p>;
  if (doc === null) {
    return (
      <div className="panel-empty">
        <Spinner label="Opening the PDF" />
      </div>
    );
  }
  return (
    <div className="pdf-view" tabIndex={0} aria-label={`Contents of ${path}`}>
      {Array.from({ length: doc.numPages }, (_, i) => (
        <PdfPage key={i} doc={doc} number={i + 1} />
      ))}
    </div>
  );
}
