// Media reads through the built bin (SPEC §5, §12). `deepdesk tools`: a media read prints
// `{"output", "media": {"kind", "mimeType", "bytes"}}` (images also §5's `"image"`); a
// tools session takes every kind, so a PDF comes back as a block; a PPTX as its text.
// `deepdesk run` with an OpenAI-compatible model (images only): a PDF goes as its text.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { formatSize, PPTX_MIME } from '../core/media/kinds';
import { makePdf, makePng, makePptx, makeWav } from '../core/media/testing/fixtures';

interface ToolLine {
  output: string;
  image?: { mimeType: string };
  media?: { kind: string; mimeType: string; bytes: number };
}

const t = useCliTestEnv('deepdesk-tools-media');

async function tools(calls: unknown[]): Promise<{ code: number | null; lines: ToolLine[]; stderr: string }> {
  const r = await t.deepdesk(['tools', '--folder', t.folder], {}, calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  return { code: r.code, stderr: r.stderr, lines: r.stdout.trim().split('\n').map((l) => JSON.parse(l) as ToolLine) };
}
const read = (file_path: string, more: Record<string, unknown> = {}) => ({ tool: 'read_file', args: { file_path, ...more } });

describe('deepdesk tools: media reads', () => {
  it('print the media object of §12 for a PDF, a WAV and a PNG (which keeps §5’s image object)', async () => {
    const pdf = makePdf(['First page', 'Second page']);
    const wav = makeWav(0.25);
    const png = makePng(3, 2);
    writeFileSync(join(t.folder, 'a.pdf'), pdf);
    writeFileSync(join(t.folder, 'a.wav'), wav);
    writeFileSync(join(t.folder, 'a.png'), png);
    const r = await tools([read('/a.pdf'), read('/a.wav'), read('/a.png')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([
      { output: `Document file /a.pdf (application/pdf, ${formatSize(pdf.length)}), 2 pages`, media: { kind: 'document', mimeType: 'application/pdf', bytes: pdf.length } },
      { output: `Audio file /a.wav (audio/wav, ${formatSize(wav.length)}), 0.3 s`, media: { kind: 'audio', mimeType: 'audio/wav', bytes: wav.length } },
      { output: `Image file /a.png (image/png, ${formatSize(png.length)}), 3×2`, image: { mimeType: 'image/png' }, media: { kind: 'image', mimeType: 'image/png', bytes: png.length } },
    ]);
  });

  it('a PPTX is its text, text-named files and a fake .png are text, no media object', async () => {
    writeFileSync(join(t.folder, 'deck.pptx'), makePptx(['Agenda', 'Results: up 4%']));
    writeFileSync(join(t.folder, 'Dockerfile'), 'FROM node:22\n');
    writeFileSync(join(t.folder, 'fake.png'), 'just words\n');
    const r = await tools([read('/deck.pptx', { offset: 1 }), read('/Dockerfile'), read('/fake.png')]);
    expect(r.code).toBe(0);
    expect(r.lines[0]!.media).toBeUndefined();
    expect(r.lines[0]!.output).toMatch(new RegExp(`^Document file /deck\\.pptx \\(${PPTX_MIME.replace(/\./g, '\\.')}, [\\d.]+ KB\\), 2 slides\\. Its text:\\n--- slide 2 ---\\nResults: up 4%$`));
    expect(r.lines.slice(1)).toEqual([{ output: '     1\tFROM node:22' }, { output: '     1\tjust words' }]);
  });

  it('a media file over 10 MB is an Error: line without media', async () => {
    writeFileSync(join(t.folder, 'big.wav'), Buffer.concat([makeWav(0.1), Buffer.alloc(10 * 1024 * 1024)]));
    const r = await tools([read('/big.wav')]);
    expect(r.lines[0]!.media).toBeUndefined();
    expect(r.lines[0]!.output).toMatch(/^Error: .*bytes.*10 MB/);
  });
});

describe('deepdesk run: media for a model that does not take them', () => {
  it('sends a PDF as its text with page markers and a WAV as §12’s notice (what the server receives)', async () => {
    t.server.push(
      { toolCalls: [{ name: 'read_file', args: { file_path: '/spec.pdf' } }, { name: 'read_file', args: { file_path: '/memo.wav' } }] },
      { text: 'Read both.' },
    );
    writeFileSync(join(t.folder, 'spec.pdf'), makePdf(['Alpha page text', 'Beta page text']));
    const wav = makeWav(0.1);
    writeFileSync(join(t.folder, 'memo.wav'), wav);
    const r = await t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'read them']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // pdf.js says nothing on stdout (its warnings would go to console.log).
    expect(r.stdout.trim()).toBe('Read both.');
    const results = toolMessages(t.server.requests[1]!).map((m) => textOf(m.content));
    expect(results[0]).toMatch(/^Document file \/spec\.pdf \(application\/pdf, [\d.]+ (B|KB)\), 2 pages\. This model does not take PDF input; the PDF's text:\n--- page 1 ---\nAlpha page text\n--- page 2 ---\nBeta page text$/);
    expect(results[1]).toBe(`[audio file /memo.wav, ${formatSize(wav.length)}: this model does not take audio input]`);
    expect(JSON.stringify(t.server.requests[1])).not.toContain('input_audio');
  });
});
