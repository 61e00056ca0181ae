import { describe, expect, it } from 'vitest';
import { qualifiedName, qualifyAll } from './naming';
import { mcpResultOutput } from './results';
import { base64Bytes } from '../../media/kinds';
import { makePng } from '../../media/testing/fixtures';

const PNG = makePng(2, 2).toString('base64');

describe('mcpResultOutput (SPEC §10 results)', () => {
  it('joins text parts; the first image is the media block, later ones are named', () => {
    const out = mcpResultOutput({
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'text', text: 'two' },
        { type: 'image', data: 'BBBB', mimeType: 'image/jpeg' },
      ],
    });
    expect(out.media).toEqual({ kind: 'image', mimeType: 'image/png', data: PNG, bytes: base64Bytes(PNG) });
    expect(out.text).toBe('one\ntwo\n[image (image/jpeg) not shown: only the first media block of a result is]');
  });

  it('a block is sent as the media its bytes are: an executable declared as an image is only named; a PNG declared as JPEG goes as PNG', () => {
    const elf = Buffer.concat([Buffer.from([0x7f]), Buffer.from('ELF'), Buffer.alloc(60)]).toString('base64');
    const fake = mcpResultOutput({ content: [{ type: 'image', data: elf, mimeType: 'image/png' }, { type: 'resource', resource: { uri: 'x://doc', mimeType: 'application/pdf', blob: elf } }] });
    expect(fake.media).toBeUndefined();
    expect(fake.text).toBe('[image (image/png) not shown: its bytes are not image/png]\n[resource x://doc, application/pdf: its bytes are not application/pdf, not shown]');
    const relabelled = mcpResultOutput({ content: [{ type: 'image', data: PNG, mimeType: 'image/jpeg' }] });
    expect(relabelled.media).toMatchObject({ kind: 'image', mimeType: 'image/png' });
  });

  it('audio and embedded blobs of a media type are media blocks too: the first of any kind', () => {
    const wav = Buffer.from('RIFF....WAVE').toString('base64');
    const audio = mcpResultOutput({ content: [{ type: 'text', text: 'spoken' }, { type: 'audio', data: wav, mimeType: 'audio/wav' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] });
    expect(audio.media).toEqual({ kind: 'audio', mimeType: 'audio/wav', data: wav, bytes: 12 });
    expect(audio.text).toBe('spoken\n[image (image/png) not shown: only the first media block of a result is]');

    const pdf = mcpResultOutput({ content: [{ type: 'resource', resource: { uri: 'docs://r/1', mimeType: 'application/pdf', blob: 'JVBERi0=' } }, { type: 'audio', data: wav, mimeType: 'audio/mpeg' }] });
    expect(pdf.media).toEqual({ kind: 'document', mimeType: 'application/pdf', data: 'JVBERi0=', bytes: 5, name: 'docs://r/1' });
    expect(pdf.text).toBe('[resource docs://r/1, application/pdf]\n[audio (audio/mpeg) not shown: only the first media block of a result is]');

    const only = mcpResultOutput({ content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }] });
    expect(only.text).toBe('[audio (audio/wav)]');
  });

  it('a blob of another type is named with its size; audio without a MIME type is only named', () => {
    const out = mcpResultOutput({ content: [{ type: 'audio', data: 'AAAA' }, { type: 'resource', resource: { uri: 'x://z', mimeType: 'application/zip', blob: 'AAAAAAAA' } }] });
    expect(out.media).toBeUndefined();
    expect(out.text).toBe('[audio (unknown type) not shown]\n[resource x://z, application/zip: 6 bytes of binary data, not shown]');
  });

  it('resource links and embedded resources name their URI; an embedded text resource brings its text', () => {
    const out = mcpResultOutput({
      content: [
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'demo://t/1', mimeType: 'text/plain', text: 'inside' } },
        { type: 'resource', resource: { uri: 'demo://b/1', mimeType: 'application/octet-stream', blob: 'AAAAAAAA' } },
      ],
    });
    expect(out.text).toBe(
      '[resource file:///a.txt (a.txt), text/plain]\n[resource demo://t/1, text/plain]\ninside\n[resource demo://b/1, application/octet-stream: 6 bytes of binary data, not shown]',
    );
  });

  it('structuredContent as JSON only when there is no text; isError starts with Error:', () => {
    expect(JSON.parse(mcpResultOutput({ content: [], structuredContent: { a: 1 } }).text)).toEqual({ a: 1 });
    expect(mcpResultOutput({ content: [{ type: 'text', text: 'said' }], structuredContent: { a: 1 } }).text).toBe('said');
    expect(mcpResultOutput({ content: [{ type: 'text', text: 'nope' }], isError: true }).text).toBe('Error: nope');
    expect(mcpResultOutput({ content: [], isError: true }).text).toBe('Error: (no output)');
    expect(mcpResultOutput({ content: [] }).text).toBe('(no output)');
  });
});

describe('qualifiedName (SPEC §10 naming)', () => {
  it('mcp__server__tool with characters outside [A-Za-z0-9_-] as _', () => {
    expect(qualifiedName('git hub', 'search.issues')).toBe('mcp__git_hub__search_issues');
    expect(qualifiedName('a-b', 'c_d')).toBe('mcp__a-b__c_d');
  });

  it('at most 64 characters, cut names end in a hash: unique and deterministic', () => {
    const long = 'x'.repeat(80);
    const a = qualifiedName('server', `${long}a`);
    const b = qualifiedName('server', `${long}b`);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(qualifiedName('server', `${long}a`)).toBe(a);
    expect(a).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
  });

  it('names that clean to the same one stay apart', () => {
    const [first, second] = qualifyAll('s', ['a.b', 'a_b']);
    expect(first).toBe('mcp__s__a_b');
    expect(second).not.toBe(first);
    expect(second).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
  });
});
