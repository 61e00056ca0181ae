// A PPTX's text, slide by slide (SPEC §12: no provider takes PowerPoint, so every model
// gets the text). A PPTX is a zip of XML parts: presentation.xml lists the slides in
// order by relationship id, its .rels maps those ids to slide parts, and a slide's
// visible text is its `<a:t>` runs, a paragraph (`<a:p>`) a line.

import { unzipSync, strFromU8 } from 'fflate';
import type { PagedText } from './pdf-text';

/** A slide part over this many bytes once unpacked is not read (a zip bomb, not a slide). */
const MAX_PART_BYTES = 20 * 1024 * 1024;

/** The slides' text, or the reason the file is not a readable PPTX. */
export function openPptxText(bytes: Uint8Array): PagedText | { error: string } {
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(bytes, {
      filter: (file) => file.originalSize <= MAX_PART_BYTES && (file.name === 'ppt/presentation.xml' || file.name === 'ppt/_rels/presentation.xml.rels' || /^ppt\/slides\/slide\d+\.xml$/.test(file.name)),
    });
  } catch (err) {
    return { error: `not a readable PPTX (${err instanceof Error ? err.message : String(err)})` };
  }
  const presentation = parts['ppt/presentation.xml'];
  const rels = parts['ppt/_rels/presentation.xml.rels'];
  if (presentation === undefined || rels === undefined) return { error: 'not a readable PPTX (no ppt/presentation.xml)' };
  const targets = new Map<string, string>();
  for (const rel of strFromU8(rels).matchAll(/<Relationship\b[^>]*>/g)) {
    const id = attribute(rel[0], 'Id');
    const target = attribute(rel[0], 'Target');
    if (id !== null && target !== null) targets.set(id, slidePartName(target));
  }
  const slides: string[] = [];
  for (const slideId of strFromU8(presentation).matchAll(/<p:sldId\b[^>]*>/g)) {
    const id = attribute(slideId[0], 'r:id');
    const part = id === null ? undefined : parts[targets.get(id) ?? ''];
    slides.push(part === undefined ? '' : slideText(strFromU8(part)));
  }
  return {
    pageCount: slides.length,
    pageText: (n) => Promise.resolve(slides[n - 1] ?? ''),
    close: () => Promise.resolve(),
  };
}

function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? match[1]! : null;
}

/** `slides/slide1.xml` or `/ppt/slides/slide1.xml` → `ppt/slides/slide1.xml`. */
function slidePartName(target: string): string {
  return target.startsWith('/') ? target.slice(1) : `ppt/${target.replace(/^\.\//, '')}`;
}

function slideText(xml: string): string {
  const lines: string[] = [];
  for (const paragraph of xml.matchAll(/<a:p(?:\s[^>]*[^/])?>([\s\S]*?)<\/a:p>/g)) {
    const runs = paragraph[1]!.matchAll(/<a:t(?:\s[^>]*[^/])?>([^<]*)<\/a:t>|<a:br\b[^>]*\/>/g);
    const line = [...runs].map((run) => (run[1] === undefined ? '\n' : decodeXml(run[1]))).join('').trimEnd();
    if (line !== '') lines.push(line);
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
