// Issue 20: read_file of media through the real tool and backends: a 2-page PDF as text
// for a model without PDF input (pdf.js through unpdf), the same PDF as a block, and a
// 3-slide PPTX as text.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FilesystemBackend } from '../../src-main/core/backends/filesystem/filesystem';
import { mediaInputFor } from '../../src-main/core/media/capabilities';
import { pdfPages } from '../../src-main/core/media/measure';
import { openPdfText } from '../../src-main/core/media/pdf-text';
import { makePdf, makePptx } from '../../src-main/core/media/testing/fixtures';
import { readFileTool } from '../../src-main/core/tools/read-file';
import { ReadGuard } from '../../src-main/core/tools/read-guard';
import { runTool, toolMap } from '../../src-main/core/tools/run-tool';
import { errorText, formatMs, median, timeRuns } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report, type Section } from './report';

const PDF_TEXT_TARGET_MS = 50;
/** A crafted PDF answers in about the time its size takes: a quadratic regex would take seconds (issue 37). */
const CRAFTED_PDF_TARGET_MS = 500;

async function benchReads(section: Section, options: BenchOptions): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-bench-media-')));
  try {
    const page = (n: number) => Array.from({ length: 30 }, (_, i) => `Page ${n}, line ${i + 1}: quarterly figures and their notes.`).join('\n');
    fs.writeFileSync(path.join(root, 'report.pdf'), makePdf([page(1), page(2)]));
    fs.writeFileSync(path.join(root, 'deck.pptx'), makePptx(['Agenda\nResults\nNext steps', page(2), 'Questions']));
    const backend = new FilesystemBackend({ rootDir: root });
    const tools = toolMap([readFileTool]);
    const read = async (file: string, provider: 'anthropic' | 'openai-compatible') => {
      const out = await runTool(tools, 'read_file', { file_path: file }, { backend, guard: new ReadGuard(), toolCallId: 'bench', mediaInput: mediaInputFor(provider, 'bench') });
      if (out.text.startsWith('Error:')) throw new Error(out.text);
      return out;
    };
    const coldStart = performance.now();
    const first = await read('/report.pdf', 'openai-compatible');
    const coldMs = performance.now() - coldStart;
    if (!first.text.includes('--- page 2 ---')) throw new Error('the PDF text has no page 2');
    const runs = Math.max(options.runs, 20);
    const asText = median(await timeRuns(() => read('/report.pdf', 'openai-compatible'), { runs, budgetMs: 5_000 }));
    section.rows.push({
      name: `read_file of a 2-page PDF as text (first read, loading pdf.js: ${formatMs(coldMs)})`,
      ours: formatMs(asText),
      target: `≤ ${PDF_TEXT_TARGET_MS} ms`,
      result: verdict(asText <= PDF_TEXT_TARGET_MS),
    });
    const asBlock = median(await timeRuns(() => read('/report.pdf', 'anthropic'), { runs, budgetMs: 5_000 }));
    section.rows.push({ name: '  the same PDF as a document block (a model that takes PDFs)', ours: formatMs(asBlock), target: '—' });
    const pptx = median(await timeRuns(() => read('/deck.pptx', 'anthropic'), { runs, budgetMs: 5_000 }));
    section.rows.push({ name: '  a 3-slide PPTX as text', ours: formatMs(pptx), target: '—' });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** What a crafted PDF costs to read: the page text of a line of 30,000 trailing spaces, and the page count of 5 MB of `/Count 1`. */
async function benchCraftedPdfs(section: Section, options: BenchOptions): Promise<void> {
  const pdf = await openPdfText(makePdf([`first${' '.repeat(30_000)}\nsecond   `]));
  if ('error' in pdf) throw new Error(pdf.error);
  try {
    const text = median(await timeRuns(() => pdf.pageText(1), { runs: options.runs, budgetMs: 5_000 }));
    section.rows.push({ name: 'crafted PDF: the text of a page with 30,000 trailing spaces', ours: formatMs(text), target: `≤ ${CRAFTED_PDF_TARGET_MS} ms`, result: verdict(text <= CRAFTED_PDF_TARGET_MS) });
  } finally {
    await pdf.close();
  }
  const counts = Buffer.from(`%PDF-1.4\n${'/Count 1 '.repeat(600_000)}\n%%EOF\n`, 'latin1');
  const pages = median(await timeRuns(async () => pdfPages(counts), { runs: options.runs, budgetMs: 5_000 }));
  section.rows.push({ name: 'crafted PDF: the page count of 5 MB of `/Count 1` and no page objects', ours: formatMs(pages), target: `≤ ${CRAFTED_PDF_TARGET_MS} ms`, result: verdict(pages <= CRAFTED_PDF_TARGET_MS) });
}

export async function benchMedia(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 20 · reading media');
  progress('media: read_file of a PDF (text and block) and a PPTX');
  await benchReads(section, options).catch((err: unknown) => section.rows.push({ name: 'read_file of media', ours: `error: ${errorText(err)}` }));
  progress('media: crafted PDFs (trailing spaces, /Count)');
  await benchCraftedPdfs(section, options).catch((err: unknown) => section.rows.push({ name: 'crafted PDFs', ours: `error: ${errorText(err)}` }));
  section.notes.push('read_file through FilesystemBackend on a temp folder: stat, sniff, read, then unpdf (pdf.js) text per page or fflate + the slides\' <a:t> runs');
}
