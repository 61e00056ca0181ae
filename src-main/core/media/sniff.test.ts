import { describe, expect, it } from 'vitest';
import { PPTX_MIME } from './kinds';
import { classifyContent, sniffMimeType } from './sniff';
import { makePdf, makePng, makePptx, makeWav } from './testing/fixtures';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const ftyp = (brand: string) => bytes([0, 0, 0, 0x18], 'ftyp', brand, [0, 0, 0, 0], 'isom');

describe('sniffMimeType (magic numbers)', () => {
  it.each([
    ['PNG', makePng(2, 2), 'image/png'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], 'JFIF'), 'image/jpeg'],
    ['GIF', bytes('GIF89a', [1, 0, 1, 0]), 'image/gif'],
    ['WEBP', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
    ['WAV', makeWav(0.01), 'audio/wav'],
    ['AVI', bytes('RIFF', [0, 0, 0, 0], 'AVI LIST'), 'video/x-msvideo'],
    ['AIFF', bytes('FORM', [0, 0, 0, 0], 'AIFFCOMM'), 'audio/aiff'],
    ['PDF', makePdf(['x']), 'application/pdf'],
    ['PDF after some junk', Buffer.concat([Buffer.alloc(100, 0x20), makePdf(['x'])]), 'application/pdf'],
    ['MP3 with ID3', bytes('ID3', [4, 0, 0]), 'audio/mpeg'],
    ['MP3 frame', bytes([0xff, 0xfb, 0x90, 0x64]), 'audio/mpeg'],
    ['MPEG-2 MP3 frame', bytes([0xff, 0xf3, 0x48, 0xc4]), 'audio/mpeg'],
    ['AAC (ADTS)', bytes([0xff, 0xf1, 0x50, 0x80]), 'audio/aac'],
    ['Ogg', bytes('OggS', [0, 2]), 'audio/ogg'],
    ['FLAC', bytes('fLaC', [0, 0, 0, 0x22]), 'audio/flac'],
    ['MP4', ftyp('isom'), 'video/mp4'],
    ['QuickTime', ftyp('qt  '), 'video/quicktime'],
    ['M4A', ftyp('M4A '), 'audio/mp4'],
    ['3GPP', ftyp('3gp5'), 'video/3gpp'],
    ['HEIC', ftyp('heic'), 'image/heic'],
    ['HEIF', ftyp('mif1'), 'image/heif'],
    ['WebM', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 1, 0x42, 0x82, 0x84], 'webm'), 'video/webm'],
    ['MPEG video', bytes([0, 0, 1, 0xba, 0x44]), 'video/mpeg'],
    ['FLV', bytes('FLV', [1, 5]), 'video/x-flv'],
    ['WMV (ASF)', bytes([0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9]), 'video/x-ms-wmv'],
    ['PPTX', makePptx(['a']), PPTX_MIME],
  ])('%s', (_name, head, mime) => {
    expect(sniffMimeType(head)?.mimeType).toBe(mime);
  });

  it('a UTF-16 text (BOM FF FE) is not MPEG audio', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('notes\n', 'utf16le')]);
    expect(sniffMimeType(utf16)).toBeNull();
    expect(classifyContent('/notes.txt', utf16)).toEqual({ text: false, mimeType: 'application/octet-stream' });
  });

  it('knows no type for text or unknown bytes', () => {
    expect(sniffMimeType(Buffer.from('FROM node:22\nRUN npm ci\n'))).toBeNull();
    expect(sniffMimeType(Buffer.from([1, 2, 3, 0]))).toBeNull();
    expect(sniffMimeType(Buffer.alloc(0))).toBeNull();
  });
});

describe('classifyContent (name and bytes)', () => {
  const text = { text: true };
  it('reads text by content whatever the name: Dockerfile, Makefile, .jsonl, .env, odd extensions', () => {
    for (const name of ['/Dockerfile', '/Makefile', '/rows.jsonl', '/.env', '/notes.weird', '/data.db', '/archive.zip', '/x'])
      expect(classifyContent(name, Buffer.from('key=value\n{"a": "é"}\n')), name).toEqual(text);
  });

  it('a media name whose bytes are plainly text is text; other bytes are not the media the name claims', () => {
    expect(classifyContent('/x.png', Buffer.from('not a picture\n'))).toEqual(text);
    expect(classifyContent('/x.pdf', Buffer.from('plain words'))).toEqual(text);
    const octets = { text: false, mimeType: 'application/octet-stream' };
    expect(classifyContent('/x.png', Buffer.from([0x89, 0x50, 0, 1, 2]))).toEqual(octets);
    // An executable named as a screenshot, a recording, a document.
    const elf = bytes([0x7f], 'ELF', [2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x3e, 0]);
    for (const name of ['/shot.png', '/a.jpg', '/b.webp', '/c.heic', '/d.wav', '/e.mp3', '/f.mp4', '/g.pdf', '/h.pptx', '/i.ppt']) {
      expect(classifyContent(name, elf), name).toEqual(octets);
    }
    expect(classifyContent('/empty.mp3', Buffer.alloc(0))).toEqual(text);
  });

  it('the magic number wins over a wrong media name; a shared container keeps the name’s type', () => {
    expect(classifyContent('/photo.png', bytes([0xff, 0xd8, 0xff, 0xe0, 0]))).toEqual({ text: false, mimeType: 'image/jpeg' });
    expect(classifyContent('/song.m4a', ftyp('isom'))).toEqual({ text: false, mimeType: 'audio/mp4' });
    expect(classifyContent('/slides.pptx', bytes('PK\x03\x04', [20, 0, 0, 0]))).toEqual({ text: false, mimeType: PPTX_MIME });
    expect(classifyContent('/old.ppt', bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0]))).toEqual({ text: false, mimeType: 'application/vnd.ms-powerpoint' });
  });

  it('binary bytes under another name are the media they are, else the name’s binary type', () => {
    expect(classifyContent('/upload.bin', makePng(1, 1))).toEqual({ text: false, mimeType: 'image/png' });
    expect(classifyContent('/noext', makeWav(0.01))).toEqual({ text: false, mimeType: 'audio/wav' });
    expect(classifyContent('/a.zip', bytes('PK\x03\x04', [20, 0, 0, 0]))).toEqual({ text: false, mimeType: 'application/zip' });
    expect(classifyContent('/blob', Buffer.from([1, 2, 0, 3]))).toEqual({ text: false, mimeType: 'application/octet-stream' });
    expect(classifyContent('/font.woff2', Buffer.from([1, 0]))).toEqual({ text: false, mimeType: 'font/woff2' });
  });

  it('an ASCII PDF without a media name stays text; a non-UTF-8 one is a PDF', () => {
    expect(classifyContent('/doc', makePdf(['x']))).toEqual(text);
    expect(classifyContent('/doc', bytes('%PDF-1.7\n%', [0xe2, 0xe3, 0xcf, 0xd3], '\n'))).toEqual({ text: false, mimeType: 'application/pdf' });
  });

  it('a UTF-8 character cut at the end of the head is still text', () => {
    const head = Buffer.from('aé', 'utf8').subarray(0, 2);
    expect(classifyContent('/x.png', head)).toEqual(text);
  });
});
