import { describe, expect, it } from 'vitest';
import { chunksAgree, folderPathOfHref, markdownHtml, pathInText, splitMarkdownBlocks } from './markdown';
import { blocksAgree, type Rendering } from './markdown-render';

describe('splitMarkdownBlocks', () => {
  it('splits at blank lines but never inside fenced code', () => {
    const text = 'Intro line\nmore\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n- item\n\n~~~\nx\n\n~~~\ntail';
    expect(splitMarkdownBlocks(text)).toEqual(['Intro line\nmore', '```ts\nconst a = 1;\n\nconst b = 2;\n```', '- item', '~~~\nx\n\n~~~\ntail']);
  });

  it('keeps an unfinished fence as one growing block', () => {
    expect(splitMarkdownBlocks('a\n\n```\ncode\n\nmore')).toEqual(['a', '```\ncode\n\nmore']);
  });
});

describe('links to files in the folder', () => {
  it('turns relative and rooted Markdown links into folder paths, and leaves web links alone', () => {
    expect(folderPathOfHref('docs/guide.md')).toBe('/docs/guide.md');
    expect(folderPathOfHref('./docs/../README.md#usage')).toBe('/README.md');
    expect(folderPathOfHref('/src/a%20b.ts')).toBe('/src/a b.ts');
    expect(folderPathOfHref('https://example.com/a.md')).toBeNull();
    expect(folderPathOfHref('mailto:x@y.z')).toBeNull();
    expect(folderPathOfHref('javascript:alert(1)')).toBeNull();
    expect(folderPathOfHref('#heading')).toBeNull();
    expect(folderPathOfHref('../outside.md')).toBeNull();
  });

  it('recognises paths written as inline code', () => {
    expect(pathInText('src/lib/a.ts')).toBe('/src/lib/a.ts');
    expect(pathInText('README.md')).toBe('/README.md');
    expect(pathInText('/etc-like/x')).toBe('/etc-like/x');
    expect(pathInText('src/a.ts:12')).toBe('/src/a.ts');
    expect(pathInText('npm test')).toBeNull();
    expect(pathInText('x')).toBeNull();
    expect(pathInText('1.5')).toBeNull();
    expect(pathInText('const a = b.c')).toBeNull();
  });
});

describe('a streamed answer keeps its blocks when the whole says the same (blocksAgree)', () => {
  const rendered = (text: string): Rendering => ({ kind: 'html', parts: [{ source: text, html: markdownHtml(text) }] });
  const agree = (text: string, leave?: string): boolean => {
    const blocks = splitMarkdownBlocks(text);
    const cache = new Map(blocks.filter((b) => b !== leave).map((b) => [b, rendered(b)]));
    const inPage = blocksAgree(rendered(text), blocks, (b) => cache.get(b));
    // The worker's answer for a long text (chunksAgree, before sanitising) is the page's.
    if (leave === undefined) expect(chunksAgree(text, blocks)).toBe(inPage);
    return inPage;
  };

  it('agrees for headings, paragraphs, tight lists, tables and code with blank lines', () => {
    const text = [
      '## Plan',
      'First I read **the tests**, then `src/app.ts`.',
      '- one\n- two\n  - nested',
      '1. first\n2. second',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '```ts\nconst a = 1;\n\nconst b = 2;\n```',
      '> quoted\n> text',
      'Done.',
    ].join('\n\n');
    expect(agree(text)).toBe(true);
  });

  it('disagrees where the whole renders otherwise (a loose list, a reference link), and while a block is not rendered', () => {
    expect(agree('- a\n\n- b')).toBe(false);
    expect(agree('See [the docs][d].\n\n[d]: https://example.com')).toBe(false);
    expect(agree('one\n\ntwo', 'two')).toBe(false);
  });

  it('in the worker, disagrees when the blocks are not the whole (one missing, or one more)', () => {
    expect(chunksAgree('one\n\ntwo', ['one'])).toBe(false);
    expect(chunksAgree('one', ['one', 'two'])).toBe(false);
    expect(chunksAgree('one\n\ntwo', ['one', 'two'])).toBe(true);
  });
});
