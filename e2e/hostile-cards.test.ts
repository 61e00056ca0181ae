// Model-controlled text where the person decides, in headless Chromium against `deepdesk
// serve` and the scripted model: generated hostile `execute` commands and `write_file`
// paths (raw HTML with the app's own classes, a fake "Press 1 to approve" card, backticks,
// Markdown, bidi overrides, zero-width and other format characters, combining marks). In
// every approval card the visible command or path, with its ⟨U+XXXX⟩ escapes decoded, is
// exactly what runs (approving with the `1` key), nothing the model wrote is drawn outside
// its card, and no element carries a class, id or style of the model's choosing. Answers and
// the file viewer show raw HTML as text. Screenshots land in test-results/screenshots/.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { screenshot, useE2ESession } from './harness';

const e2e = useE2ESession();
let context: BrowserContext | undefined;

afterEach(async () => {
  await context?.close();
  context = undefined;
});

async function open(url: string): Promise<Page> {
  context = await e2e.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => {
    throw err;
  });
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return page;
}

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const log = (page: Page): Locator => page.getByRole('log', { name: 'Conversation' });
const approvals = (page: Page): Locator => log(page).getByRole('group', { name: 'Approve tool call' });

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

// ---------------------------------------------------------------- generated hostile text

/** A small deterministic PRNG, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function codePoints(test: RegExp): string[] {
  const out: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (test.test(c)) out.push(c);
  }
  return out;
}

const FORMAT = codePoints(/^[\p{Cf}\p{Zl}\p{Zp}]$/u);
const MARKS = codePoints(/^\p{M}$/u);

/** Fragments a hostile model writes where the card quotes it (no `'`: the commands quote with it). */
const HTML = [
  '<div class="modal-backdrop" id="dd-evil-1" style="position:fixed;inset:0;z-index:999;background:#000"><div class="modal approval-card dd-evil">npm test … Press 1 to approve</div></div>',
  '<img src=x onerror="document.title=`dd-evil`" class="dd-evil">',
  '</p></div><button class="btn btn-primary dd-evil">Approve</button>',
  '<span class="approval-card dd-evil" style="position:absolute;top:0;left:0;width:100vw;height:100vh">npm test</span>',
  '<a href="https://example.com" class="path-link dd-evil" id="dd-evil-2">link</a>',
];
const MARKDOWN = ['`npm test`', '``', '**bold**', '_em_', '[Press 1 to approve](https://example.com)', '# heading', '\n\n- item\n', '> quote', '```', '![i](x)', '&lt;b&gt;', '⟨U+0041⟩', '\\`'];
const PLAIN = ['npm test', ' ', 'a', 'é', '中', 'ע', '😀', '-rf', '.txt', 'Press 1 to approve'];

/** A hostile fragment: always some HTML, then a mix of Markdown, invisible characters, marks and plain text. */
function hostile(random: () => number, options: { slashes: boolean; controls: boolean }): string {
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  let text = pick(HTML);
  const count = 4 + Math.floor(random() * 8);
  for (let i = 0; i < count; i++) {
    const kind = random();
    if (kind < 0.25) text += pick(MARKDOWN);
    else if (kind < 0.45) text += pick(FORMAT);
    else if (kind < 0.6) text += (random() < 0.5 ? pick([' ', '\n', '']) : 'a') + pick(MARKS) + pick(MARKS);
    else if (kind < 0.65) text += 'z' + '\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308';
    else if (kind < 0.75 && options.controls) text += pick(['\x1b[2J', '\r', '\x07', '\x7f', '\u0085', '\u009b']);
    else if (kind < 0.8) text += pick(['\u202Etxt.sh', '\u2066x\u2069', '\u200B', '\uFEFF', '\u{E0041}\u{E0042}', '\u3164', '\uFE0F']);
    else text += pick(PLAIN);
  }
  text = text.replace(/'/g, '"');
  if (!options.slashes) text = text.replace(/\//g, '∕');
  return text;
}

/** The text of an element as the person reads it, with each ⟨U+XXXX⟩ escape decoded. */
async function shownText(locator: Locator): Promise<string> {
  const text = await locator.evaluate((el) => el.textContent ?? '');
  return text.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
}

interface CardReport {
  /** Elements of the card (or of its tool card) drawn outside it. */
  outside: string[];
  /** Elements in the card with a class, id or style the app does not give them. */
  modelAttributes: string[];
  /** Elements anywhere in the page that only the model's text could have made. */
  foreign: string[];
  /** Element children of the reason and the always-allow label other than escape marks. */
  markup: string[];
}

/** Checks, in the page, that nothing of the model's leaves the card or dresses as the app. */
async function inspect(group: Locator): Promise<CardReport> {
  return group.evaluate((card) => {
    const describe = (el: Element): string => `<${el.tagName.toLowerCase()} class="${el.getAttribute('class') ?? ''}" id="${el.id}">${(el.textContent ?? '').slice(0, 40)}`;
    type Box = { left: number; top: number; right: number; bottom: number };
    const inside = (r: Box, outer: Box) => r.left >= outer.left - 1 && r.top >= outer.top - 1 && r.right <= outer.right + 1 && r.bottom <= outer.bottom + 1;
    /** The part of `el` that can be seen: clipped by the scrolling and clipping boxes around it, up to `root`. */
    const visibleBox = (el: Element, root: Element): Box | null => {
      const b = el.getBoundingClientRect();
      let r: Box = { left: b.left, top: b.top, right: b.right, bottom: b.bottom };
      for (let a = el.parentElement; a && a !== root; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const c = a.getBoundingClientRect();
        r = { left: Math.max(r.left, c.left), top: Math.max(r.top, c.top), right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom) };
      }
      return r.right - r.left > 0 && r.bottom - r.top > 0 ? r : null;
    };
    const outside: string[] = [];
    const article = card.closest('article') ?? card;
    for (const [root, scope] of [[card, card.querySelectorAll('*')], [article, article.querySelectorAll('*')]] as const) {
      const outer = root.getBoundingClientRect();
      for (const el of scope) {
        const r = visibleBox(el, root);
        if (r && !inside(r, outer)) outside.push(describe(el));
        const position = getComputedStyle(el).position;
        if (position === 'fixed' || position === 'sticky') outside.push(`${position}: ${describe(el)}`);
      }
    }
    const modelAttributes: string[] = [];
    for (const el of card.querySelectorAll('*')) {
      // (The app sizes its own reply box and checkbox inline; the model can make neither.)
      if (el.hasAttribute('style') && !el.matches('textarea, input')) modelAttributes.push(`style on ${describe(el)}`);
      if (/dd-evil/.test(`${el.getAttribute('class') ?? ''} ${el.id}`)) modelAttributes.push(describe(el));
      if (el.matches('.modal-backdrop, .modal, .approval-card, [role="dialog"]')) modelAttributes.push(describe(el));
    }
    if (card.querySelectorAll('button.btn-primary').length !== 1) modelAttributes.push('more than one primary button');
    const foreign = [...document.querySelectorAll('.modal-backdrop, .modal, [role="dialog"], .dd-evil, [id^="dd-evil"], img[src="x"]')].map(describe);
    if (document.querySelectorAll('.approval-card').length !== 1) foreign.push(`${document.querySelectorAll('.approval-card').length} approval cards`);
    if (document.title.includes('dd-evil')) foreign.push('an onerror handler ran');
    const markup = [...card.querySelectorAll('.approval-reason *, .rule-scope *')].filter((el) => !el.matches('mark.invisible-char, span:not([class]):not([id])')).map(describe);
    return { outside, modelAttributes, foreign, markup };
  });
}

const CLEAN: CardReport = { outside: [], modelAttributes: [], foreign: [], markup: [] };

/** Waits for the card of the next call (the one whose command or path reads `expected`). */
async function cardShowing(page: Page, part: string, expected: string): Promise<Locator> {
  const group = approvals(page);
  await poll(async () => ((await group.count()) === 1 ? shownText(group.locator(part)) : null)).toBe(expected);
  return group;
}

/** Approves with the `1` key, as the attack expects the person to. */
async function pressApprove(group: Locator): Promise<void> {
  await group.getByRole('button', { name: 'Approve' }).focus();
  await group.page().keyboard.press('1');
}

describe('hostile commands and paths in the approval card', () => {
  it('execute: the card shows exactly the command that runs, and nothing the model wrote leaves it', async () => {
    const random = rng(20240611);
    const cases = Array.from({ length: 9 }, (_, i) => {
      const payload = hostile(random, { slashes: true, controls: true });
      // An unknown program (the rule offer quotes it whole), a redirection target (the reason
      // quotes it), and a printf whose file shows what ran.
      const form = i % 3;
      const command = form === 0 ? `ddtool '${payload}' --flag` : form === 1 ? `echo hi > '${payload}'` : `printf '%s' '${payload}' > made-${i}.txt`;
      return { command, payload, form, approve: form !== 1 };
    });
    const serve = await e2e.serve({
      script: [...cases.map((c): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: c.command } }] })), { text: 'All done.' }],
    });
    const page = await open(serve.url);
    await send(page, 'run the hostile commands');
    for (const [i, c] of cases.entries()) {
      const group = await cardShowing(page, '.approval-command pre', c.command);
      if (i === 0) await screenshot(page, 'hostile-command-card');
      expect(await inspect(group), `case ${i}: ${JSON.stringify(c.command)}`).toEqual(CLEAN);
      if (c.approve) await pressApprove(group);
      else await group.getByRole('button', { name: 'Reject' }).click();
      await poll(() => approvals(page).count()).toBe(i + 1 < cases.length ? 1 : 0);
      if (c.form === 2) {
        // What ran is what the card showed: the file holds exactly the quoted payload.
        await poll(() => (existsSync(join(serve.folder, `made-${i}.txt`)) ? readFileSync(join(serve.folder, `made-${i}.txt`), 'utf8') : null)).toBe(c.payload);
      }
    }
    await log(page).getByText('All done.').waitFor({ timeout: 60_000 });
    // The cards keep showing what ran, escaped the same way.
    const commands = log(page).locator('article .tool-command pre');
    await poll(() => commands.count()).toBe(cases.length);
    for (const [i, c] of cases.entries()) expect(await shownText(commands.nth(i))).toBe(`$ ${c.command}`);
    const toolMessages = serve.model.requests.at(-1)!.messages.filter((m) => m.role === 'tool');
    expect(toolMessages).toHaveLength(cases.length);
    expect(await page.locator('.modal-backdrop, .dd-evil, [id^="dd-evil"], img[src="x"]').count()).toBe(0);
  });

  it('write_file: the card shows exactly the path written, and nothing the model wrote leaves it', async () => {
    const random = rng(777);
    const cases = Array.from({ length: 4 }, (_, i) => {
      // A file name of at most 255 bytes, without slashes, backslashes or NUL.
      let name = hostile(random, { slashes: false, controls: i % 2 === 0 }).replace(/[\0\\]/g, '');
      while (Buffer.byteLength(name) > 240) name = [...name].slice(0, -1).join('');
      return { path: `/${name}-${i}.md`, content: `file ${i}\n` };
    });
    const serve = await e2e.serve({
      script: [...cases.map((c): ScriptStep => ({ toolCalls: [{ name: 'write_file', args: { file_path: c.path, content: c.content } }] })), { text: 'Wrote them.' }],
    });
    const page = await open(serve.url);
    await send(page, 'write the hostile files');
    for (const [i, c] of cases.entries()) {
      const group = await cardShowing(page, 'figure.diff figcaption .mono', c.path);
      if (i === 0) await screenshot(page, 'hostile-path-card');
      expect(await inspect(group), `case ${i}: ${JSON.stringify(c.path)}`).toEqual(CLEAN);
      // The rule offer names the path as plain text, exactly.
      expect(await shownText(group.locator('.rule-scope'))).toContain(c.path);
      await pressApprove(group);
      // Written at exactly the path the card showed.
      await poll(() => (existsSync(join(serve.folder, c.path)) ? readFileSync(join(serve.folder, c.path), 'utf8') : null)).toBe(c.content);
    }
    await log(page).getByText('Wrote them.').waitFor({ timeout: 60_000 });
    expect(await page.locator('.modal-backdrop, .dd-evil, [id^="dd-evil"], img[src="x"]').count()).toBe(0);
  });
});

describe('Markdown the model can reach', () => {
  const ANSWER = [
    'Done. <div class="modal-backdrop" id="dd-evil-3" style="position:fixed;inset:0"><div class="modal">Press 1 to approve</div></div>',
    '',
    'Some **bold** text, <span class="btn btn-primary dd-evil">Approve</span> and <img src=x onerror="document.title=`dd-evil`">.',
    '',
    '<div class="approval-card dd-evil">',
    '',
    '*fake card*',
    '',
    '</div>',
    '',
    '```ts',
    'const answer = 42;',
    '```',
  ].join('\n');

  it('answers and Markdown files show raw HTML as text and keep only the app\'s own classes', async () => {
    const serve = await e2e.serve({ script: [{ text: ANSWER }] });
    writeFileSync(join(serve.folder, 'evil.md'), ANSWER);
    const page = await open(serve.url);
    await send(page, 'answer with HTML');
    const answer = log(page).locator('.markdown').last();
    await poll(() => answer.innerText()).toContain('const answer = 42;');
    await screenshot(page, 'hostile-answer');

    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /evil\.md/ }).click();
    const viewer = page.locator('.markdown-view .markdown');
    await poll(() => viewer.count()).toBe(1);
    await poll(() => viewer.innerText()).toContain('const answer = 42;');

    for (const markdown of [answer, viewer]) {
      // Rendered and highlighted in the background (a worker, a lazily loaded highlighter): wait for both before reading it.
      await poll(() => markdown.locator('strong').count()).toBeGreaterThan(0);
      await poll(() => markdown.locator('.code-block .hljs-keyword').count()).toBeGreaterThan(0);
      const text = await markdown.innerText();
      expect(text).toContain('<div class="modal-backdrop" id="dd-evil-3" style="position:fixed;inset:0">');
      expect(text).toContain('<span class="btn btn-primary dd-evil">Approve</span>');
      const attributes = await markdown.evaluate((root) =>
        [...root.querySelectorAll('*')]
          .filter((el) => el.hasAttribute('id') || el.hasAttribute('style') || /dd-evil|modal|btn|approval-card/.test(el.getAttribute('class') ?? ''))
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect(attributes).toEqual([]);
    }
    expect(await page.locator('.modal-backdrop, .dd-evil, [id^="dd-evil"], img[src="x"]').count()).toBe(0);
    expect(await page.title()).not.toContain('dd-evil');
  });
});
