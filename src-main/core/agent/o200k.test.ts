// o200k_base counts: exactly gpt-tokenizer's on real text (the docs, every script, special
// tokens' text, lone surrogates, long runs), with the ranks held outside V8's heap.
// vitest-isolate: the memory case measures what the first count adds to a fresh process.
import { readdirSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { countO200k } from './o200k';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('countO200k', () => {
  it('holds the ranks in typed arrays: the first count adds under 4 MB to the heap (gpt-tokenizer added ~14 MB)', async () => {
    gc();
    const before = process.memoryUsage();
    expect(countO200k('Read the tests first.')).toBe(5);
    // The file read while loading is freed by a sweep that may finish after gc() returns.
    const settled = async () => {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
      return process.memoryUsage();
    };
    let after = await settled();
    for (let i = 0; i < 50 && after.arrayBuffers - before.arrayBuffers >= 10 * 1024 * 1024; i++) after = await settled();
    expect(after.heapUsed - before.heapUsed).toBeLessThan(4 * 1024 * 1024);
    expect(after.arrayBuffers - before.arrayBuffers).toBeGreaterThan(3 * 1024 * 1024);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(10 * 1024 * 1024);
  });

  it('is gpt-tokenizer’s exact count', async () => {
    const { countTokens } = await import('gpt-tokenizer');
    const docs = new URL('../../../docs/', import.meta.url);
    const texts = [
      ...readdirSync(docs).flatMap((name) => (name.endsWith('.md') ? [readFileSync(new URL(name, docs), 'utf8')] : [])),
      readFileSync(new URL('./loop.ts', import.meta.url), 'utf8'),
      'héllo wörld ñ 日本語のテキスト 한국어 текст العربية हिन्दी ภาษาไทย Ελληνικά',
      '😀👍🏽 family: 👨‍👩‍👧 flags 🇫🇷🇯🇵',
      'special tokens as text: <|endoftext|> <|im_start|>user<|im_sep|> <|fim_prefix|>',
      'lone \uD800 surrogates \uDC00 and \uD83D',
      ' '.repeat(300) + 'x' + '\t\n'.repeat(40) + '\r\n\r\n',
      Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256)).toString('base64'),
      "It's, they'RE, we'll: I'd've 1234567 3.14159 0x1F 1e-10",
    ];
    for (const text of texts) expect(countO200k(text)).toBe(countTokens(text, { disallowedSpecial: new Set() }));
    expect(countO200k('')).toBe(0);
  });
});
