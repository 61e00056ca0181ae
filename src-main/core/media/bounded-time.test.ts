// What a file holds never takes long to read (issue 37): the regexes over a PDF's text and
// bytes are linear in them, so a crafted file answers in about the time its size takes. The
// crafted files' reads are timed in the bench (`npm run bench -- --only media`); here, what they read.
import { describe, expect, it } from 'vitest';
import { pdfPages } from './measure';
import { openPdfText } from './pdf-text';
import { makePdf } from './testing/fixtures';

describe('reads of crafted PDFs', () => {
  it('trailing spaces are cut from each line of a page (without a regex that retries from every space)', async () => {
    const pdf = await openPdfText(makePdf([`first${' '.repeat(30_000)}\nsecond   `]));
    if ('error' in pdf) throw new Error(pdf.error);
    const text = await pdf.pageText(1);
    await pdf.close();
    expect(text).toBe('first\nsecond');
  });

  it('counting the pages of 5 MB of `/Count 1` with no page objects answers', () => {
    const bytes = Buffer.from(`%PDF-1.4\n${'/Count 1 '.repeat(600_000)}\n%%EOF\n`, 'latin1');
    expect(pdfPages(bytes)).toBeGreaterThan(0);
  });

  it('still counts /Count of the page tree when there are no page objects', () => {
    expect(pdfPages(Buffer.from('%PDF-1.4\n1 0 obj << /Type /Pages /Kids [] /Count 7 >> endobj\n', 'latin1'))).toBe(7);
    expect(pdfPages(Buffer.from('%PDF-1.4\n1 0 obj << /Count 5 /Type /Pages >> endobj\n', 'latin1'))).toBe(5);
  });
});
