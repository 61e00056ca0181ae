// A PPTX's text, slide by slide (SPEC §12: no provider takes PowerPoint, so every model
// gets the text). A PPTX is a zip of XML parts: presentation.xml lists the slides in
// order by relationship id, its .rels maps those ids to slide parts, and a slide's
// visible text is its `<a:t>` runs, a paragraph (`<a:p>`) a line.

import { strFromU8 } from 'fflate';
import type { PagedText } from './pdf-text';
import { readZipEntries } from './zip-entries';

/**
 * What the parts read here may unpack to, all together. A deck's slide XML is tens of KB a
 * slide, so 64 MB holds thousands of slides; more is a zip bomb, not a presentation.
 */
export const PPTX_TEXT_BUDGET_BYTES = 64 * 1024 * 1024;

const isTextPart = (name: string) => name === 'ppt/presentation.xml' || name === 'ppt/_rels/presentation.xml.rels' || /^ppt\/slides\/slide\d+\.xml$/.test(name);

/** The slides' text, or the reason the file is not a readable PPTX. */
export function openPptxText(bytes: Uint8Array): PagedText | { error: string } {
  const read = readZipEntries(bytes, isTextPart, PPTX_TEXT_BUDGET_BYTES);
  if ('error' in read) return { error: `not a readable PPTX: ${read.error}` };
  const parts = read.entries;
  const presentation = parts.get('ppt/presentation.xml');
  const rels = parts.get('ppt/_rels/presentation.xml.rels');
  if (presentation === undefined || rels === undefined) return { error: 'not a readable PPTX: no ppt/presentation.xml' };
  const targets = new Map<string, string>();
  for (const rel of tags(strFromU8(rels), 'Relationship')) {
    const id = attribute(rel, 'Id');
    const target = attribute(rel, 'Target');
    if (id !== null && target !== null) targets.set(id, slidePartName(target));
  }
  const slideParts: Array<Uint8Array | undefined> = [];
  for (const slideId of tags(strFromU8(presentation), 'p:sldId')) {
    const id = attribute(slideId, 'r:id');
    slideParts.push(id === null ? undefined : parts.get(targets.get(id) ?? ''));
  }
  return {
    pageCount: slideParts.length,
    pageText: (n) => {
      const part = slideParts[n - 1];
      return Promise.resolve(part === undefined ? '' : slideText(strFromU8(part)));
    },
    close: () => Promise.resolve(),
  };
}

interface Tag {
  /** What stands between `<` and `>`. */
  body: string;
  name: string;
  /** Where the tag starts and ends (after its `>`). */
  start: number;
  end: number;
}

/**
 * The tags of an XML text in order (of one name, when given), found with indexOf: linear in
 * the text whatever it holds (regexes like `<a:p[^>]*>([\s\S]*?)</a:p>` are quadratic on
 * a part full of unclosed tags, and a part may be tens of MB).
 */
function* tags(xml: string, only?: string): Generator<Tag> {
  for (let at = xml.indexOf('<'); at >= 0; ) {
    const close = xml.indexOf('>', at);
    if (close < 0) return;
    const body = xml.slice(at + 1, close);
    const name = /^\/?[^\s/>]*/.exec(body)![0];
    if (only === undefined || name === only) yield { body, name, start: at, end: close + 1 };
    at = xml.indexOf('<', close);
  }
}

function attribute(tag: Tag, name: string): string | null {
  const at = tag.body.search(new RegExp(`\\s${name}="`));
  if (at < 0) return null;
  const from = at + name.length + 3;
  const to = tag.body.indexOf('"', from);
  return to < 0 ? null : tag.body.slice(from, to);
}

/** `slides/slide1.xml` or `/ppt/slides/slide1.xml` → `ppt/slides/slide1.xml`. */
function slidePartName(target: string): string {
  return target.startsWith('/') ? target.slice(1) : `ppt/${target.replace(/^\.\//, '')}`;
}

/** The `<a:t>` runs of each `<a:p>` paragraph, a paragraph a line (`<a:br/>` breaks one), empty lines dropped. */
function slideText(xml: string): string {
  const lines: string[] = [];
  let line: string | null = null;
  let textFrom = -1;
  for (const tag of tags(xml)) {
    const selfClosing = tag.body.endsWith('/');
    if (tag.name === 'a:p' && !selfClosing) line = '';
    else if (tag.name === '/a:p' && line !== null) {
      const trimmed = line.trimEnd();
      if (trimmed !== '') lines.push(trimmed);
      line = null;
    } else if (line === null) continue;
    else if (tag.name === 'a:t' && !selfClosing) textFrom = tag.end;
    else if (tag.name === '/a:t' && textFrom >= 0) {
      line += decodeXml(xml.slice(textFrom, tag.start));
      textFrom = -1;
    } else {
      if (tag.name === 'a:br' && selfClosing) line += '\n';
      textFrom = -1;
    }
  }
  return lines.join('\n');
}

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (whole, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith('#')) {
      const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[lower]!;
  });
}
