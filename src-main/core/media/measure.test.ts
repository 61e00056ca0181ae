// A media block is measured from its own header (pixels, pages, seconds) and costed by the
// provider's published rules. PNG, PDF and WAV are real files from the fixtures; JPEG,
// GIF, WEBP and MP4 are the header bytes those formats define (all that is read of them).
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makePdf, makePng, makeWav } from './testing/fixtures';
import { imageSize, measureMedia, mp4Seconds, pdfPages, wavSeconds } from './measure';
import { anthropicImageTokens, geminiImageTokens, mediaTokens, openAiImageTokens } from './tokens';

const bytes = (...parts: Array<string | number[] | Buffer>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const u32be = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const u32le = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255];
const u16le = (n: number) => [n & 255, (n >>> 8) & 255];
const u24le = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255];

/** SOI, an APP0 segment to skip, then a baseline SOF0 of `width`×`height`. */
const jpeg = (width: number, height: number) =>
  bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16], 'JFIF\0', [1, 1, 0, 0, 1, 0, 1, 0, 0], [0xff, 0xc0, 0, 17, 8, height >> 8, height & 255, width >> 8, width & 255, 3], new Array(12).fill(0));
const gif = (width: number, height: number) => bytes('GIF89a', u16le(width), u16le(height), [0, 0, 0]);
const webp = (chunk: string, body: number[]) => bytes('RIFF', u32le(4 + 8 + body.length), 'WEBP', chunk, u32le(body.length), body);
/** ftyp, then moov holding an mvhd (version 0) of `duration` at `timescale`. */
const mp4 = (timescale: number, duration: number) => {
  const mvhd = bytes(u32be(8 + 100), 'mvhd', [0, 0, 0, 0], u32be(0), u32be(0), u32be(timescale), u32be(duration), new Array(80).fill(0));
  return bytes(u32be(16), 'ftypisom', u32be(0), u32be(8 + mvhd.length), 'moov', mvhd);
};

describe('measureMedia', () => {
  it('reads image sizes from PNG, JPEG, GIF and the three WEBP headers', () => {
    expect(imageSize(makePng(37, 21))).toEqual({ width: 37, height: 21 });
    expect(imageSize(jpeg(1920, 1080))).toEqual({ width: 1920, height: 1080 });
    expect(imageSize(gif(320, 200))).toEqual({ width: 320, height: 200 });
    // Lossy: frame tag, start code 9d 01 2a, then 14-bit sizes.
    expect(imageSize(webp('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...u16le(640), ...u16le(480), 0, 0]))).toEqual({ width: 640, height: 480 });
    // Lossless: signature 0x2f, then width-1 and height-1 in 14 bits each.
    const bits = (800 - 1) | ((600 - 1) << 14);
    expect(imageSize(webp('VP8L', [0x2f, ...u32le(bits), 0, 0, 0, 0, 0]))).toEqual({ width: 800, height: 600 });
    // Extended: flags, then 24-bit canvas width-1 and height-1.
    expect(imageSize(webp('VP8X', [0, 0, 0, 0, ...u24le(4000 - 1), ...u24le(3000 - 1)]))).toEqual({ width: 4000, height: 3000 });
    expect(imageSize(Buffer.from('not an image at all, just text'))).toBeNull();
  });

  it('counts PDF pages, and takes the duration of a WAV and an MP4 from their headers', () => {
    expect(pdfPages(makePdf(['one', 'two']))).toBe(2);
    expect(pdfPages(makePdf(['a', 'b', 'c', 'd', 'e']))).toBe(5);
    // PDF 1.5 writers keep page objects in compressed object streams.
    const objects = deflateSync(Buffer.from('4 0 5 60 << /Type /Page /Parent 3 0 R >> << /Type /Page /Parent 3 0 R >> << /Type /Page >> << /Type /Pages /Count 9 >>'));
    const compressed = bytes(`%PDF-1.5\n1 0 obj\n<< /Type /ObjStm /N 4 /First 12 /Filter /FlateDecode /Length ${objects.length} >>\nstream\n`, objects, '\nendstream\nendobj\n%%EOF\n');
    expect(pdfPages(compressed)).toBe(3);
    // Nothing found: a guess from the size (about 100 KB a page), at least 1.
    expect(pdfPages(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(500_000)]))).toBe(5);
    expect(wavSeconds(makeWav(1.5))).toBeCloseTo(1.5, 5);
    expect(wavSeconds(makeWav(3, 16_000))).toBeCloseTo(3, 5);
    expect(mp4Seconds(mp4(600, 600 * 42))).toBe(42);
    expect(mp4Seconds(Buffer.from('no boxes here'))).toBeNull();
  });

  it('falls back to the size at a typical bitrate when a header says nothing', () => {
    expect(measureMedia('audio', Buffer.alloc(160_000))).toEqual({ kind: 'audio', seconds: 10 });
    expect(measureMedia('video', Buffer.alloc(1_250_000))).toEqual({ kind: 'video', seconds: 10 });
    expect(measureMedia('image', Buffer.from('heic bytes we do not parse'))).toEqual({ kind: 'image', width: 1024, height: 1024 });
  });
});

describe('mediaTokens', () => {
  it('costs images by each provider’s rule', () => {
    // Anthropic: w·h/750, long edge scaled to 1568, at most ~1,600.
    expect(anthropicImageTokens(1000, 1000)).toBe(1334);
    expect(anthropicImageTokens(200, 200)).toBe(54);
    expect(anthropicImageTokens(4000, 3000)).toBe(1600);
    // OpenAI's documented examples: 1024² → 765; 2048×4096 → 1105.
    expect(openAiImageTokens(1024, 1024)).toBe(765);
    expect(openAiImageTokens(2048, 4096)).toBe(1105);
    expect(openAiImageTokens(100, 100)).toBe(255);
    // Gemini: 258 when both sides ≤ 384, else 258 per 768-px tile.
    expect(geminiImageTokens(384, 300)).toBe(258);
    expect(geminiImageTokens(1000, 1000)).toBe(1032);
  });

  it('costs PDF pages, audio and video seconds by provider', () => {
    const pdf = measureMedia('document', makePdf(['one', 'two']));
    expect(mediaTokens(pdf, 'google')).toBe(516);
    expect(mediaTokens(pdf, 'anthropic')).toBe(4000);
    const wav = measureMedia('audio', makeWav(2));
    expect(mediaTokens(wav, 'google')).toBe(64);
    expect(mediaTokens(wav, 'openai')).toBe(20);
    expect(mediaTokens(measureMedia('video', mp4(1000, 10_000)), 'google')).toBe(2630);
  });
});
