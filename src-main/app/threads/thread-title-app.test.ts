// A thread's title through the app's contract, with real SQLite and the scripted model: from
// what the person typed, for every kind of input — a skill's command (never the skill's
// body), a mention of a file (never the file's text), files alone (their names).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAppTestEnv } from '../window/app-harness.test-support';
import { titleFromMessage, titleFromTyped } from './thread-title';

const t = useAppTestEnv('deepdesk-thread-title');
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('a thread is titled by what the person typed', () => {
  it('a skill command, a mention, files alone', async () => {
    mkdirSync(join(t.dataDir, 'skills', 'review-pr'), { recursive: true });
    writeFileSync(join(t.dataDir, 'skills', 'review-pr', 'SKILL.md'), '---\nname: review-pr\ndescription: Reviews a pull request\n---\n## When to use this skill\nWhen asked to review.\n');
    writeFileSync(join(t.folder, 'notes.md'), '# Notes that are not a title\n');
    t.server.push({ text: 'one' }, { text: 'two' }, { text: 'three' });
    const { call } = await t.open();
    const titleOf = async (text: string, attachments?: Array<{ name: string; mimeType: string; data: string }>): Promise<string> => {
      const thread = await call('threads.create', {});
      await call('threads.send', { threadId: thread.id, text, ...(attachments ? { attachments } : {}) });
      await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running, { timeout: 60_000 }).toBe(false);
      return (await call('threads.get', { threadId: thread.id })).thread.title;
    };
    expect(await titleOf('/review-pr 42 please')).toBe('/review-pr 42 please');
    expect(await titleOf('summarise @notes.md')).toBe('summarise @notes.md');
    expect(await titleOf('', [{ name: 'dot.png', mimeType: 'image/png', data: PNG }])).toBe('dot.png');
  });
});

describe('titles without what was typed (deepdesk run, ACP)', () => {
  it('leave out mentioned files and attachment lines', () => {
    expect(titleFromMessage({ role: 'user', content: 'look at this\n\n<attached_file path="/a.md">\n# A\n</attached_file>' })).toBe('look at this');
    expect(titleFromMessage({ role: 'user', content: '[Attached dot.png (image/png, 70 B)]' })).toBe('dot.png');
  });
});

describe('titles are short', () => {
  it('the first line, up to its first sentence, at most 8 words and 60 characters', () => {
    expect(titleFromTyped('Find out why the rounding of the invoice totals in the VAT report differs by a cent', [])).toBe('Find out why the rounding of the invoice…');
    expect(titleFromTyped('Why does test_total fail? It passed yesterday and nothing changed.', [])).toBe('Why does test_total fail?');
    expect(titleFromTyped('Fix the login bug\n\nSteps:\n1. open the page', [])).toBe('Fix the login bug');
    expect(titleFromTyped('\n\n  Hi. Can you fix the flaky test in auth.spec.ts?', [])).toBe('Hi. Can you fix the flaky test in…');
    expect(titleFromTyped('/review-pr 42 please', [])).toBe('/review-pr 42 please');
  });

  it('a long word is cut at 60 characters; the cut never splits a character', () => {
    const path = titleFromTyped(`look at /${'very-long-folder-name/'.repeat(6)}file.ts`, []);
    expect([...path].length).toBe(60);
    expect(path.endsWith('…')).toBe(true);
    const emoji = titleFromTyped('😀'.repeat(80), []);
    expect([...emoji].length).toBe(60);
    expect(emoji).not.toMatch(/[\uD800-\uDBFF]…$/);
  });
});
