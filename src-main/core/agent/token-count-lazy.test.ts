// The tokenizer's ranks (o200k.ts: ~6 MB held) are read when text is first counted, not with
// token-count.ts: `deepdesk serve` and its host hold none of it until a run counts.
// vitest-isolate: what this file checks is what a fresh process has loaded.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTextTokens } from './token-count';

const tokenizerLoaded = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes(`${sep}gpt-tokenizer${sep}`));

describe('the tokenizer', () => {
  it('is loaded at the first count, not with the module', () => {
    expect(tokenizerLoaded()).toBe(false);
    expect(countTextTokens('Read the tests first.')).toBeGreaterThan(0);
    expect(tokenizerLoaded()).toBe(true);
  });

  it('is imported by neither token-count.ts nor o200k.ts as a value (that would load it with the module)', () => {
    for (const file of ['./token-count.ts', './o200k.ts']) {
      const source = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(source).not.toMatch(/^import\s+(?!type\b)[^;]*from\s+'gpt-tokenizer[^']*';/m);
    }
  });
});
