import { describe, expect, it } from 'vitest';
import { attachmentContent } from './attachment-content';

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

describe('attachmentContent', () => {
  it('shows images, plays audio and video, draws PDFs, reads UTF-8 text and describes the rest', () => {
    expect(attachmentContent('a.png', 'image/png', 'AAAA')).toEqual({ kind: 'image', path: 'a.png', mimeType: 'image/png', data: 'AAAA' });
    expect(attachmentContent('/attachments/t.wav', 'audio/wav', 'AAAA')).toMatchObject({ kind: 'media', media: 'audio' });
    expect(attachmentContent('c.webm', 'video/webm', 'AAAA')).toMatchObject({ kind: 'media', media: 'video' });
    expect(attachmentContent('d.pdf', 'application/pdf', 'AAAA')).toMatchObject({ kind: 'media', media: 'document' });
    expect(attachmentContent('n.txt', 'text/plain', b64('héllo\n'))).toEqual({ kind: 'text', path: 'n.txt', text: 'héllo\n', truncated: false });
    expect(attachmentContent('x.bin', 'application/octet-stream', b64(new Uint8Array([0, 1, 2])))).toEqual({ kind: 'binary', path: 'x.bin', mimeType: 'application/octet-stream', size: 3 });
    expect(attachmentContent('y.bin', '', b64(new Uint8Array([0xff, 0xfe, 0x41])))).toMatchObject({ kind: 'binary', size: 3 });
  });
});
