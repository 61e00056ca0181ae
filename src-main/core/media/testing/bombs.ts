// Decompression bombs for the bounded-input tests (issue 37): small files that unpack to
// gigabytes. Made by streaming a run of spaces through deflate, so making one holds only
// the compressed bytes; each is otherwise a file its format's readers open.

import { once } from 'node:events';
import { crc32, createDeflate, createDeflateRaw } from 'node:zlib';

const MB = 1024 * 1024;

/** `megabytes` MB of spaces (or of `unit` repeated), deflated (zlib-wrapped, or raw as zip entries hold them). */
export async function deflatedSpaces(megabytes: number, raw = false, unit = ' '): Promise<Buffer> {
  const deflate = raw ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const spaces = Buffer.alloc(MB, unit);
  for (let i = 0; i < megabytes; i++) if (!deflate.write(spaces)) await once(deflate, 'drain');
  deflate.end();
  await once(deflate, 'end');
  return Buffer.concat(out);
}

interface ZipEntry {
  name: string;
  /** Raw-deflated bytes (method 8), or stored bytes (method 0). */
  data: Buffer;
  method: 0 | 8;
  crc: number;
  size: number;
}

/** A zip of these entries, each as given (no compression done here). */
function zipOf(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt32LE(e.crc, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const stored = (name: string, text: string): ZipEntry => {
  const data = Buffer.from(text, 'utf8');
  return { name, data, method: 0, crc: crc32(data), size: data.length };
};

/**
 * A PPTX of `slides` slides whose every slide part is `megabytesPerSlide` MB of spaces
 * (each under the old per-part limit, and honest about its size): about 1/1000 of that on disk.
 */
export async function makePptxBomb(slides: number, megabytesPerSlide: number): Promise<Buffer> {
  const data = await deflatedSpaces(megabytesPerSlide, true);
  let crc = 0;
  const spaces = Buffer.alloc(MB, 0x20);
  for (let i = 0; i < megabytesPerSlide; i++) crc = crc32(spaces, crc);
  const ids = Array.from({ length: slides }, (_, i) => i + 1);
  return zipOf([
    stored('ppt/presentation.xml', `<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst>${ids.map((i) => `<p:sldId id="${255 + i}" r:id="rId${i}"/>`).join('')}</p:sldIdLst></p:presentation>`),
    stored('ppt/_rels/presentation.xml.rels', `<Relationships>${ids.map((i) => `<Relationship Id="rId${i}" Target="slides/slide${i}.xml"/>`).join('')}</Relationships>`),
    ...ids.map((i): ZipEntry => ({ name: `ppt/slides/slide${i}.xml`, data, method: 8, crc, size: megabytesPerSlide * MB })),
  ]);
}

/**
 * A one-page PDF whose content stream and an object stream each inflate to `megabytes` MB
 * of spaces (pdf.js reads the first for the page's text). With `pageTypeHidden`, the page's
 * dictionary says no `/Type /Page`, so a page count looks into the object stream. With
 * `content`, the streams repeat that text instead of a space (`(x) Tj ` draws text).
 */
export async function makePdfBomb(megabytes: number, { pageTypeHidden = false, content = ' ' } = {}): Promise<Buffer> {
  const flate = await deflatedSpaces(megabytes, false, content);
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const add = (chunk: string | Buffer) => {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(b);
    size += b.length;
  };
  const object = (id: number, dictionary: string, stream?: Buffer) => {
    offsets[id] = size;
    add(`${id} 0 obj\n${dictionary}\n`);
    if (stream !== undefined) {
      add('stream\n');
      add(stream);
      add('\nendstream\n');
    }
    add('endobj\n');
  };
  add('%PDF-1.5\n');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, `<< ${pageTypeHidden ? '' : '/Type /Page '}/Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>`);
  object(4, `<< /Length ${flate.length} /Filter /FlateDecode >>`, flate);
  object(5, `<< /Type /ObjStm /N 1 /First 4 /Length ${flate.length} /Filter /FlateDecode >>`, flate);
  const xref = size;
  add(`xref\n0 6\n0000000000 65535 f \n${offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`);
  add(`trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}
