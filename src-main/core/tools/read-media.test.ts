// read_file of media (SPEC §12) over real folders and a real SQLite store: a block for a
// model that takes the kind, a PDF's text for one that does not, a PPTX's text for all,
// §12's notice otherwise; text found by content whatever the name.

import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateBackend } from '../backends/store/state';
import { mediaInputFor } from '../media/capabilities';
import type { MediaInput } from '../models/types';
import { MAX_MEDIA_BYTES, PPTX_MIME, formatSize, notTakenNotice } from '../media/kinds';
import { makePdf, makePng, makePptx, makeWav } from '../media/testing/fixtures';
import { ReadGuard } from './read-guard';
import { readFileTool } from './read-file';
import { readMedia } from './read-media';
import { runTool, toolMap } from './run-tool';
import { createTestWorkspace, type TestWorkspace } from './test-workspace.test-support';
import type { ToolOutput } from './tool';

let ws: TestWorkspace;
const put = (rel: string, content: string | Buffer) => {
  const full = join(ws.folder, rel);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
};
const tools = toolMap([readFileTool]);
const read = (args: Record<string, unknown>, mediaInput?: MediaInput, backend = ws.mounts.backend): Promise<ToolOutput> =>
  runTool(tools, 'read_file', args, { backend, guard: new ReadGuard(), toolCallId: 't', ...(mediaInput ? { mediaInput } : {}) });

const ANTHROPIC = mediaInputFor('anthropic', 'claude-sonnet-4-5');
const GOOGLE = mediaInputFor('google', 'gemini-2.5-flash');
const COMPATIBLE = mediaInputFor('openai-compatible', 'llama3');

beforeEach(() => {
  ws = createTestWorkspace({ execute: false });
});
afterEach(() => ws.dispose());

const TWO_PAGES = makePdf(['Hello from page one\nsecond line', 'Page two says goodbye']);

describe('a PDF', () => {
  it('is a document block with a line naming it and its pages when the model takes PDFs', async () => {
    put('docs/a.pdf', TWO_PAGES);
    const out = await read({ file_path: '/docs/a.pdf' }, ANTHROPIC);
    expect(out.text).toBe(`Document file /docs/a.pdf (application/pdf, ${formatSize(TWO_PAGES.length)}), 2 pages`);
    expect(out.media).toEqual({ kind: 'document', mimeType: 'application/pdf', data: TWO_PAGES.toString('base64'), bytes: TWO_PAGES.length, name: '/docs/a.pdf' });
  });

  it('is its text, pages marked, for a model without PDF input', async () => {
    put('docs/a.pdf', TWO_PAGES);
    const out = await read({ file_path: '/docs/a.pdf' }, COMPATIBLE);
    expect(out.media).toBeUndefined();
    expect(out.text).toBe(
      `Document file /docs/a.pdf (application/pdf, ${formatSize(TWO_PAGES.length)}), 2 pages. This model does not take PDF input; the PDF's text:\n` +
        '--- page 1 ---\nHello from page one\nsecond line\n--- page 2 ---\nPage two says goodbye',
    );
  });

  it('pages with offset and limit counting pages, with a continue notice', async () => {
    put('p.pdf', makePdf(['one', 'two', 'three', 'four']));
    const first = await read({ file_path: '/p.pdf', limit: 2 }, COMPATIBLE);
    expect(first.text).toMatch(/--- page 1 ---\none\n--- page 2 ---\ntwo\n\n\[Showing pages 1-2 of 4\. Continue with offset=2\.\]$/);
    expect(first.text).not.toContain('three');
    expect(first.gist).toEqual({ kind: 'document-text', unit: 'page', total: 4, from: 1, to: 2 });
    const next = await read({ file_path: '/p.pdf', offset: 2, limit: 1 }, COMPATIBLE);
    expect(next.text).toMatch(/\n--- page 3 ---\nthree\n\n\[Showing pages 3-3 of 4\. Continue with offset=3\.\]$/);
    const rest = await read({ file_path: '/p.pdf', offset: 3 }, COMPATIBLE);
    expect(rest.text).toMatch(/\n--- page 4 ---\nfour$/);
    expect((await read({ file_path: '/p.pdf', offset: 4 }, COMPATIBLE)).text).toBe('Error: Page offset 4 exceeds document length (4 pages)');
  });

  it('shows by default as many whole pages as fit in 80,000 characters', async () => {
    const page = Array.from({ length: 36 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog.`).join('\n');
    put('long.pdf', makePdf(Array.from({ length: 60 }, () => page)));
    const out = await read({ file_path: '/long.pdf' }, COMPATIBLE);
    expect(out.text.split('\n\n[Showing')[0]!.length).toBeLessThanOrEqual(80_000);
    const shown = [...out.text.matchAll(/--- page (\d+) ---/g)].map((m) => Number(m[1]));
    expect(shown).toEqual(Array.from({ length: shown.length }, (_, i) => i + 1));
    expect(shown.length).toBeGreaterThan(30);
    expect(shown.length).toBeLessThan(60);
    expect(out.text.endsWith(`\n\n[Showing pages 1-${shown.length} of 60. Continue with offset=${shown.length}.]`)).toBe(true);
    // The last page shown is whole: the same text as the first.
    const pageText = (n: number) => out.text.split(`--- page ${n} ---\n`)[1]!.split(/\n--- page |\n\n\[Showing/)[0];
    expect(pageText(shown.length)).toBe(pageText(1));
    expect(pageText(1)).toContain('Line 35: the quick brown fox');
    const next = await read({ file_path: '/long.pdf', offset: shown.length }, COMPATIBLE);
    expect(next.text).toContain(`\n--- page ${shown.length + 1} ---\n`);
  });

  it('cuts a page longer than the cap and says so; the next read starts at the next page', async () => {
    // The fixture's pages hold little text (pdf.js keeps only what lies on the page), so the cap is made small.
    const pdf = makePdf(['a fairly long first page line', 'after']);
    const file = { content: pdf.toString('base64'), encoding: 'base64' as const, mimeType: 'application/pdf' };
    const base = { path: '/cut.pdf', file, mediaInput: COMPATIBLE, limit: undefined, maxChars: 140 };
    const out = await readMedia({ ...base, offset: 0 });
    expect(out.text.split('\n[page 1 is cut here')[0]!.length).toBe(140);
    expect(out.text).toMatch(/\n--- page 1 ---\na fairly[^\n]*\n\[page 1 is cut here: it is longer than 140 characters\]\n\n\[Showing pages 1-1 of 2\. Continue with offset=1\.\]$/);
    expect((await readMedia({ ...base, offset: 1 })).text).toMatch(/\n--- page 2 ---\nafter$/);
  });

  it('without a text layer says so and gives §12’s notice', async () => {
    const scanned = makePdf(['', '']);
    put('scan.pdf', scanned);
    const out = await read({ file_path: '/scan.pdf' }, COMPATIBLE);
    expect(out.text.split('\n')).toEqual([
      `Document file /scan.pdf (application/pdf, ${formatSize(scanned.length)}), 2 pages without a text layer (scanned?): no text to show.`,
      notTakenNotice('document', '/scan.pdf', scanned.length),
    ]);
  });

  it('that is corrupt is an Error: with the reason', async () => {
    put('bad.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'), Buffer.from([0, 1, 2, 3, 0xff])]));
    const out = await read({ file_path: '/bad.pdf' }, COMPATIBLE);
    expect(out.text).toMatch(/^Error: '\/bad\.pdf' is not a readable PDF: \S/);
  });

  it('in the SQLite store reads the same way (uploaded bytes)', async () => {
    await ws.mounts.memories.uploadFiles([{ path: '/a.pdf', content: TWO_PAGES }]);
    expect((await read({ file_path: '/memories/a.pdf' }, GOOGLE)).media?.mimeType).toBe('application/pdf');
    expect((await read({ file_path: '/memories/a.pdf' }, COMPATIBLE)).text).toContain('--- page 2 ---\nPage two says goodbye');
  });
});

describe('a PPTX', () => {
  it('is its slides’ text in slide order for every model, paged by slides', async () => {
    const pptx = makePptx(['Title slide\nBy Ada & Co', 'Second <slide>', 'Third']);
    put('deck.pptx', pptx);
    for (const input of [GOOGLE, ANTHROPIC, undefined]) {
      const out = await read({ file_path: '/deck.pptx' }, input);
      expect(out.media).toBeUndefined();
      expect(out.text).toBe(
        `Document file /deck.pptx (${PPTX_MIME}, ${formatSize(pptx.length)}), 3 slides. Its text:\n` +
          '--- slide 1 ---\nTitle slide\nBy Ada & Co\n--- slide 2 ---\nSecond <slide>\n--- slide 3 ---\nThird',
      );
    }
    const paged = await read({ file_path: '/deck.pptx', offset: 1, limit: 1 }, GOOGLE);
    expect(paged.text).toMatch(/\n--- slide 2 ---\nSecond <slide>\n\n\[Showing slides 2-2 of 3\. Continue with offset=2\.\]$/);
  });

  it('a .ppt (binary PowerPoint) gets §12’s notice, even where everything is taken', async () => {
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]);
    put('old.ppt', ole);
    expect((await read({ file_path: '/old.ppt' }, GOOGLE)).text).toBe(notTakenNotice('document', '/old.ppt', 512));
    expect((await read({ file_path: '/old.ppt' })).text).toBe(notTakenNotice('document', '/old.ppt', 512));
  });
});

describe('audio, video and images', () => {
  it('a WAV is an audio block for Gemini and §12’s notice for Anthropic', async () => {
    const wav = makeWav(0.5);
    put('a.wav', wav);
    const taken = await read({ file_path: '/a.wav' }, GOOGLE);
    expect(taken.text).toBe(`Audio file /a.wav (audio/wav, ${formatSize(wav.length)}), 0.5 s`);
    expect(taken.media).toMatchObject({ kind: 'audio', mimeType: 'audio/wav', bytes: wav.length });
    // The window's one line reads what it holds from these facts, not from the line.
    expect(taken.gist).toEqual({ kind: 'media', media: 'audio', holds: { seconds: 0.5 } });
    const notTaken = await read({ file_path: '/a.wav' }, ANTHROPIC);
    expect(notTaken).toEqual({ text: notTakenNotice('audio', '/a.wav', wav.length), gist: { kind: 'media-not-taken', media: 'audio' } });
  });

  it('a HEIC image is the notice for Anthropic and an image block for Gemini', async () => {
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(100)]);
    put('photo.heic', heic);
    expect((await read({ file_path: '/photo.heic' }, ANTHROPIC)).text).toBe(notTakenNotice('image', '/photo.heic', heic.length));
    const heicBlock = await read({ file_path: '/photo.heic' }, GOOGLE);
    expect(heicBlock.media).toMatchObject({ kind: 'image', mimeType: 'image/heic' });
    // Its pixels are not in a header read here: no size rather than a guessed one.
    expect(heicBlock.text).toBe(`Image file /photo.heic (image/heic, ${heic.length} B)`);
  });

  it('a video is the notice for OpenAI-compatible models and a block in a tools session (everything taken)', async () => {
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom\0\0\0\0isomavc1', 'latin1'), Buffer.alloc(64)]);
    put('clip.mp4', mp4);
    expect((await read({ file_path: '/clip.mp4' }, COMPATIBLE)).text).toBe(notTakenNotice('video', '/clip.mp4', mp4.length));
    const block = await read({ file_path: '/clip.mp4' });
    expect(block.media).toMatchObject({ kind: 'video', mimeType: 'video/mp4', bytes: mp4.length });
    expect(block.text).toBe(`Video file /clip.mp4 (video/mp4, ${mp4.length} B)`);
  });

  it('a PNG is an image block named by its path and pixels; a JPEG named .png goes as the JPEG it is', async () => {
    const png = makePng(4, 3);
    put('pic.png', png);
    const out = await read({ file_path: '/pic.png' }, COMPATIBLE);
    expect(out.text).toBe(`Image file /pic.png (image/png, ${png.length} B), 4×3`);
    expect(Buffer.from(out.media!.data, 'base64').equals(png)).toBe(true);
    put('really-jpeg.png', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]));
    expect((await read({ file_path: '/really-jpeg.png' }, COMPATIBLE)).media?.mimeType).toBe('image/jpeg');
  });

  it('over 10 MB is an Error: naming the size and the limit', async () => {
    put('big.png', makePng(1, 1));
    truncateSync(join(ws.folder, 'big.png'), MAX_MEDIA_BYTES + 1);
    const out = await read({ file_path: '/big.png' }, GOOGLE);
    expect(out.media).toBeUndefined();
    expect(out.text).toMatch(/^Error: .*10485761 bytes.*10 MB/);
    await ws.mounts.memories.uploadFiles([{ path: '/big.wav', content: Buffer.concat([makeWav(0.1), Buffer.alloc(MAX_MEDIA_BYTES)]) }]);
    expect((await read({ file_path: '/memories/big.wav' }, GOOGLE)).text).toMatch(/^Error: .*bytes.*10 MB/);
  });
});

describe('text by content (SPEC §12)', () => {
  it('reads Dockerfile, Makefile, .jsonl, .env and odd extensions as text', async () => {
    const files: Record<string, string> = {
      Dockerfile: 'FROM node:22\nRUN npm ci\n',
      Makefile: 'all:\n\tcc main.c\n',
      'rows.jsonl': '{"a":1}\n{"b":"é"}\n',
      '.env': 'KEY=value\nOTHER=2\n',
      'notes.weird': 'plain words\nmore\n',
      'dump.db': 'looks like text\nyes\n',
    };
    for (const [name, content] of Object.entries(files)) {
      put(name, content);
      const out = await read({ file_path: `/${name}` }, COMPATIBLE);
      expect(out.media, name).toBeUndefined();
      expect(out.text, name).toBe(`     1\t${content.split('\n')[0]}\n     2\t${content.split('\n')[1]}`);
    }
  });

  it('x.png holding text is read as text, on disk and in a thread’s files', async () => {
    put('x.png', 'not really a picture\n');
    expect((await read({ file_path: '/x.png' }, GOOGLE)).text).toBe('     1\tnot really a picture');
    const state = new StateBackend();
    await state.uploadFiles([{ path: '/x.png', content: new TextEncoder().encode('uploaded words\n') }]);
    await state.write('/y.pdf', 'written words\n');
    expect((await read({ file_path: '/x.png' }, GOOGLE, state)).text).toBe('     1\tuploaded words');
    expect((await read({ file_path: '/y.pdf' }, GOOGLE, state)).text).toBe('     1\twritten words');
  });

  it('binary bytes under a text-like name are the media they are', async () => {
    put('upload.bin', makeWav(0.1));
    expect((await read({ file_path: '/upload.bin' }, GOOGLE)).media).toMatchObject({ kind: 'audio', mimeType: 'audio/wav' });
    put('blob.bin', Buffer.from([1, 2, 0, 3]));
    expect((await read({ file_path: '/blob.bin' }, GOOGLE)).text).toBe('Binary file /blob.bin (application/octet-stream, 4 B) cannot be shown as text. Use execute with a suitable converter if you need its contents.');
  });
});
