// The tokenizer (~20 MB held) is loaded when text is first counted, not with token-count.ts:
// `deepdesk serve` and its host hold none of it until a run counts.
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

  it('is imported by token-count.ts for its types only (a value import would load it with the module)', () => {
    const source = readFileSync(new URL('./token-count.ts', import.meta.url), 'utf8');
    const imports = [...source.matchAll(/^import\s+(type\s+)?[^;]*from\s+'gpt-tokenizer';/gm)];
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.every((m) => m[1] !== undefined)).toBe(true);
  });
});
