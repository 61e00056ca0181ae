// Token estimates stay close to the tokenizer's exact count, and a run of text without spaces
// (which byte-pair merging handles in quadratic time) is counted in pieces.
import { countTokens } from 'gpt-tokenizer';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { mediaInputFor } from '../media/capabilities';
import { notTakenNotice } from '../media/kinds';
import { makePdf, makePng } from '../media/testing/fixtures';
import type { ChatMessage } from '../models/types';
import { countMessageTokens, countRequestTokens, countTextTokens } from './token-count';

const exact = (text: string): number => countTokens(text, { disallowedSpecial: new Set<string>() });

describe('countTextTokens', () => {
  it('is the exact count for text without long runs', () => {
    const text = 'Read the tests first, then src/app.ts: `const a = 1;` and https://example.com/a/b?c=d.\n'.repeat(50);
    expect(countTextTokens(text)).toBe(exact(text));
    expect(countTextTokens('')).toBe(0);
  });

  it('counts long runs in pieces: never fewer tokens, at most one more per piece', () => {
    const base64 = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256)).toString('base64');
    const astral = '😀'.repeat(700);
    for (const text of ['['.repeat(3000), `before ${'a'.repeat(2000)} after`, `x ${base64} y`, `${astral}\n${'>'.repeat(1500)} q`]) {
      const pieces = Math.ceil(text.length / 256);
      const counted = countTextTokens(text);
      expect(counted).toBeGreaterThanOrEqual(exact(text));
      expect(counted).toBeLessThanOrEqual(exact(text) + pieces);
    }
  });

  // A model's list indented one level deeper each line (Markdown that stalls a renderer) held
  // the agent host's event loop for seconds when its spaces went to the tokenizer whole.
  it('hands the tokenizer no run of spaces longer than two pieces (the first piece goes with what comes before it)', () => {
    const tokenizer = createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: typeof countTokens };
    const seen = vi.spyOn(tokenizer, 'countTokens');
    const text = Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
    const counted = countTextTokens(text);
    const longest = Math.max(...seen.mock.calls.flatMap(([piece]) => (typeof piece === 'string' ? piece : '').match(/\s+/g) ?? []).map((run) => run.length));
    seen.mockRestore();
    expect(longest).toBeLessThanOrEqual(2 * 256);
    expect(counted).toBeGreaterThanOrEqual(exact(text));
    expect(counted).toBeLessThanOrEqual(exact(text) + Math.ceil(text.length / 256));
  });
});

describe('countMessageTokens with media', () => {
  const png = makePng(1000, 1000);
  const pdf = makePdf(['one', 'two']);
  const message: ChatMessage = {
    role: 'tool',
    toolCallId: 'c1',
    toolName: 'read_file',
    content: [
      { type: 'text', text: 'Image file /pic.png' },
      { type: 'image', mimeType: 'image/png', data: png.toString('base64'), name: '/pic.png', bytes: png.length },
      { type: 'file', mimeType: 'application/pdf', data: pdf.toString('base64'), name: '/a.pdf', bytes: pdf.length },
    ],
  };
  const text = countMessageTokens({ role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'Image file /pic.png' });

  it('costs each block by the provider of the model it is counted for, from the same cached message', () => {
    expect(countMessageTokens(message, { provider: 'anthropic' }) - text).toBe(1334 + 2 * 2_000);
    expect(countMessageTokens(message, { provider: 'google' }) - text).toBe(1032 + 2 * 258);
    expect(countMessageTokens(message, { provider: 'openai' }) - text).toBe(765 + 2 * 2_000);
    // A provider change recounts: back to Anthropic gives Anthropic's figure again.
    expect(countMessageTokens(message, { provider: 'anthropic' }) - text).toBe(1334 + 4_000);
  });

  it('counts a block the model does not take as its §12 notice', () => {
    const imagesOnly = { provider: 'openai-compatible' as const, mediaInput: mediaInputFor('openai-compatible', 'llava') };
    const notice = countTextTokens(notTakenNotice('document', '/a.pdf', pdf.length));
    expect(countMessageTokens(message, imagesOnly) - text).toBe(765 + notice);
    expect(notice).toBeLessThan(40);
  });

  it('counts a request by the model given', () => {
    const request = { system: 'sys', messages: [message], tools: [] };
    expect(countRequestTokens(request, { provider: 'google' })).toBeLessThan(countRequestTokens(request, { provider: 'anthropic' }));
  });
});
