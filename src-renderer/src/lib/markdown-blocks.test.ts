import { describe, expect, it } from 'vitest';
import { splitMarkdownBlocks } from './markdown';

describe('splitMarkdownBlocks', () => {
  it('splits at blank lines but never inside fenced code', () => {
    const text = 'Intro line\nmore\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n- item\n\n~~~\nx\n\n~~~\ntail';
    expect(splitMarkdownBlocks(text)).toEqual(['Intro line\nmore', '```ts\nconst a = 1;\n\nconst b = 2;\n```', '- item', '~~~\nx\n\n~~~\ntail']);
  });

  it('keeps an unfinished fence as one growing block', () => {
    expect(splitMarkdownBlocks('a\n\n```\ncode\n\nmore')).toEqual(['a', '```\ncode\n\nmore']);
  });
});
