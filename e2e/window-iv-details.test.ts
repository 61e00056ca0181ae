// Issue 42, the details of a first day, in headless Chromium at the sizes where they were
// seen: the agent's pty is as wide as the view that shows it; the Changes panel's diffs open
// large and its names are not cut; media reads are labelled truthfully.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSshd, type TestSshd } from '../src-main/core/backends/remote/testing/sshd';
import { makePdf, makePng } from '../src-main/core/media/testing/fixtures';
import { auditEveryWay, describeViolations } from './axe';
import { approval, conversation, openApp, screenshot, sendMessage, startServe, toolCard, useE2ESession, type ServeHandle } from './harness';

const session = useE2ESession();
const pages: Page[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
});

async function open(url: string, width: number, height: number): Promise<Page> {
  const page = await openApp(session.browser, url, { width, height });
  pages.push(page);
  return page;
}

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const ALLOW_COMMANDS = { rules: [{ tools: ['execute'], decision: 'allow' }] };
const terminal = (page: Page) => page.getByRole('region', { name: 'Terminal' });
const terminalText = (page: Page) => terminal(page).locator('.xterm-rows').innerText();

/** Opens the Terminal as tall as it goes (at 1024×700 its default shows three rows). */
async function expandTerminal(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Expand Terminal' }).click();
  await page.getByRole('separator', { name: 'Resize Terminal' }).press('End');
}

/** Prints its pty's width, then a line of `=` exactly that wide, then `after`. */
const WIDTH_COMMAND = `stty size | awk '{ print $2; s = ""; for (i = 0; i < $2; i++) s = s "="; print s }'; echo after-$((6*7))`;

interface WidthSeen {
  /** What `tput cols` printed. */
  printed: number;
  /** The rows of `=` as the view shows them. */
  ruleRows: string[];
  /** The row after them. */
  next: string;
  /** The view's columns, from its screen's width and a cell's. */
  viewCols: number;
}

/** The shown terminal's rows of WIDTH_COMMAND's output. */
function widthSeen(page: Page): Promise<WidthSeen> {
  return terminal(page)
    .locator('.xterm-screen')
    .evaluate((screen) => {
      const rows = [...screen.querySelectorAll('.xterm-rows > div')];
      const texts = rows.map((r) => (r.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd());
      const first = texts.findIndex((t) => /^=+$/.test(t));
      let end = first;
      while (end < texts.length && /^=+$/.test(texts[end]!)) end++;
      const span = rows[first]?.querySelector('span') ?? rows[first];
      const cell = span ? span.getBoundingClientRect().width / (span.textContent ?? '').length : 1;
      return {
        printed: Number(texts[first - 1]),
        ruleRows: texts.slice(first, end),
        next: texts[end] ?? '',
        viewCols: Math.round(screen.getBoundingClientRect().width / cell),
      };
    });
}

describe("the agent's pty is as wide as the view that shows it", () => {
  // One serve for the four; each test asks in a thread of its own (a thread's terminals are its own).
  let serve: ServeHandle;
  let threads = 0;
  beforeAll(async () => {
    serve = await startServe({ settings: ALLOW_COMMANDS });
  });
  afterAll(async () => {
    await serve?.stop();
  });

  /** A window on a new thread whose next turn runs WIDTH_COMMAND, then says `Measured.`. */
  async function widthThread(width: number, height: number): Promise<Page> {
    serve.model.push({ toolCalls: [{ name: 'execute', args: { command: WIDTH_COMMAND } }] }, { text: 'Measured.' });
    const page = await open(serve.url, width, height);
    const list = page.getByRole('region', { name: 'Threads' }).locator('.thread-item');
    if (threads > 0) {
      // The window opens on the latest thread: once it shows, a new one.
      await conversation(page).getByText('Measured.').waitFor({ timeout: 60_000 });
      await page.getByRole('region', { name: 'Threads' }).getByRole('button', { name: 'New thread', exact: true }).press('Enter');
      await poll(() => list.count()).toBe(threads + 1);
      await poll(() => conversation(page).getByText('Measured.').count()).toBe(0);
    }
    threads += 1;
    return page;
  }

  for (const [width, height] of [
    [1400, 900],
    [1024, 700],
  ] as const) {
    it(`at ${width}×${height}, with the Terminal open: a line as wide as the pty fills one row of the view`, async () => {
      const page = await widthThread(width, height);
      await expandTerminal(page);
      await poll(() => terminalText(page)).toMatch(/\S/);
      await sendMessage(page, 'How wide is your terminal?');
      await conversation(page).getByText('Measured.').waitFor({ timeout: 60_000 });
      await poll(() => terminalText(page)).toContain('after-42');
      const seen = await widthSeen(page);
      expect(seen.ruleRows).toEqual(['='.repeat(seen.printed)]);
      expect(seen.next).toBe('after-42');
      expect(seen.printed).toBe(seen.viewCols);
      await screenshot(page, `window-iv-pty-width-${width}x${height}`);
    });

    it(`at ${width}×${height}, with the Terminal closed by the person while it runs: the line does not wrap once it is opened`, async () => {
      const page = await widthThread(width, height);
      // Closed by the person: an agent command does not open it again.
      await page.getByRole('button', { name: 'Expand Terminal' }).click();
      await page.getByRole('button', { name: 'Collapse Terminal' }).click();
      await sendMessage(page, 'How wide is your terminal?');
      await conversation(page).getByText('Measured.').waitFor({ timeout: 60_000 });
      expect(await page.getByRole('button', { name: 'Expand Terminal' }).isVisible()).toBe(true);
      await expandTerminal(page);
      await poll(() => terminalText(page)).toContain('after-42');
      await poll(async () => (await widthSeen(page)).ruleRows.length).toBe(1);
      const seen = await widthSeen(page);
      expect(seen.ruleRows).toEqual(['='.repeat(seen.printed)]);
      expect(seen.next).toBe('after-42');
      // As wide as the panel would hold, give or take a column or two of its estimate.
      expect(seen.printed).toBeLessThanOrEqual(seen.viewCols);
      expect(seen.printed).toBeGreaterThanOrEqual(seen.viewCols - 3);
    });
  }
});

const changes = (page: Page) => page.getByRole('region', { name: 'Changes' });
const ALLOW_WRITES = { rules: [{ tools: ['write_file', 'edit_file'], decision: 'allow' }] };
const PRICING = '/src/acme_store/checkout/pricing.py';
const LONG_NAME = '/tests/checkout/test_pricing_rules_for_discounts.py';
const PRICING_TEXT = Array.from({ length: 40 }, (_, i) => `def price_${i}(amount: float, discount: float = 0.0) -> float:  # a line longer than the panel is wide\n    return amount * (1 - discount) + ${i}\n`).join('');

/** A window of `width`×`height` on the thread whose run wrote the files (the Changes panel's beforeAll). */
async function openChanges(serve: ServeHandle, width: number, height: number): Promise<Page> {
  const page = await open(serve.url, width, height);
  await conversation(page).getByText('Wrote pricing.').waitFor({ timeout: 60_000 });
  await changes(page).getByRole('listitem', { name: LONG_NAME }).waitFor({ timeout: 60_000 });
  return page;
}

/** How a changed file's name shows: its file name's text, whether any of it is cut, and its box against the row's. */
async function nameShown(page: Page, path: string) {
  const item = changes(page).getByRole('listitem', { name: path });
  const name = item.locator('.changes-path').first();
  const base = name.locator('.path-base');
  const cut = await base.evaluate((el) => {
    const outer = el.closest('.path-name')!;
    const box = el.getBoundingClientRect();
    const room = outer.getBoundingClientRect();
    return el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight || box.right > room.right + 0.5 || box.bottom > room.bottom + 0.5;
  });
  return { text: await base.textContent(), cut, title: await name.getAttribute('title'), box: (await base.boundingBox())!, row: (await item.boundingBox())! };
}

describe('the Changes panel', () => {
  // The files are written once; each test opens a window of its own on that thread.
  let serve: ServeHandle;
  beforeAll(async () => {
    serve = await startServe({
      settings: ALLOW_WRITES,
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: PRICING, content: PRICING_TEXT } }] },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/pyproject.toml', content: '[project]\nname = "acme"\n' } }] },
        { toolCalls: [{ name: 'write_file', args: { file_path: LONG_NAME, content: 'def test_it():\n    pass\n' } }] },
        { text: 'Wrote pricing.' },
      ],
    });
    const page = await openApp(session.browser, serve.url);
    await sendMessage(page, 'Write the pricing module');
    await conversation(page).getByText('Wrote pricing.').waitFor({ timeout: 60_000 });
    await page.context().close();
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it('at 1024×700 shows every changed file’s name in full (the folders give way, a long name wraps), the whole path in its tooltip', async () => {
    const page = await openChanges(serve, 1024, 700);
    await screenshot(page, 'window-iv-changes-1024x700');
    for (const [path, file] of [
      [PRICING, 'pricing.py'],
      ['/pyproject.toml', 'pyproject.toml'],
      [LONG_NAME, 'test_pricing_rules_for_discounts.py'],
    ] as const) {
      const shown = await nameShown(page, path);
      expect(shown.text).toBe(file);
      expect(shown.cut, `${path} is cut`).toBe(false);
      expect(shown.title).toBe(path);
      expect(shown.box.x + shown.box.width).toBeLessThanOrEqual(shown.row.x + shown.row.width);
    }
  });

  it('passes the axe audit (WCAG 2.2 AA) with the panel and with the large diff open, at both sizes and in both themes', async () => {
    const page = await openChanges(serve, 1400, 900);
    const panel = await auditEveryWay(page);
    await changes(page).getByRole('listitem', { name: PRICING }).getByRole('button', { name: 'Open diff' }).click();
    await page.getByRole('dialog', { name: `Diff of ${PRICING}` }).waitFor();
    const dialog = await auditEveryWay(page);
    const found = { ...panel, ...Object.fromEntries(Object.entries(dialog).map(([way, v]) => [`dialog ${way}`, v])) };
    expect(Object.entries(found).map(([way, v]) => `${way}: ${describeViolations(v)}`)).toEqual([]);
  });

  for (const [width, height] of [
    [1400, 900],
    [1024, 700],
  ] as const) {
    it(`at ${width}×${height} opens a changed file's diff large by keyboard; Esc closes it and focus returns`, async () => {
      const page = await openChanges(serve, width, height);
      const item = changes(page).getByRole('listitem', { name: PRICING });
      const small = (await item.getByRole('figure', { name: `Changes to ${PRICING}` }).boundingBox())!;
      const opener = item.getByRole('button', { name: 'Open diff' });
      await opener.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: `Diff of ${PRICING}` });
      await dialog.waitFor();
      const figure = dialog.getByRole('figure', { name: `Changes to ${PRICING}` });
      const large = (await figure.boundingBox())!;
      expect(large.width).toBeGreaterThan(Math.min(width - 120, 1100));
      expect(large.width).toBeGreaterThan(small.width * 2.5);
      expect(large.height).toBeGreaterThan(height / 2);
      // The whole diff is there: its last line too.
      expect(await figure.innerText()).toContain('return amount * (1 - discount) + 39');
      await screenshot(page, `window-iv-diff-dialog-${width}x${height}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await poll(() => opener.evaluate((el) => el === document.activeElement)).toBe(true);
    });
  }
});

describe('reads of files that are not text', () => {
  it('at 1400×900 a 2-page PDF, an image and a binary file are labelled by what they hold, not "0 lines"', async () => {
    const serve = await session.serve({
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/spec.pdf' } }] },
        { toolCalls: [{ name: 'read_file', args: { file_path: '/shot.png' } }] },
        { toolCalls: [{ name: 'read_file', args: { file_path: '/tool.bin' } }] },
        { text: 'Read them.' },
      ],
    });
    writeFileSync(join(serve.folder, 'spec.pdf'), makePdf(['Alpha page text', 'Beta page text']));
    writeFileSync(join(serve.folder, 'shot.png'), makePng(800, 600));
    writeFileSync(join(serve.folder, 'tool.bin'), Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 0, 7, 8, 9]));
    const page = await open(serve.url, 1400, 900);
    await sendMessage(page, 'Read the spec, the screenshot and the tool');
    await conversation(page).getByText('Read them.').waitFor({ timeout: 60_000 });
    // Three reads in a row fold into one line (ReadGroup): opened, each card shows its label.
    await conversation(page).getByRole('button', { name: /^Read 3 files/ }).click();
    const cards = toolCard(page, 'read_file');
    await poll(() => cards.count()).toBe(3);
    const text = await conversation(page).innerText();
    expect(text).not.toMatch(/\b0 lines\b/);
    expect(text).toContain('Read spec.pdf · 2 pages');
    expect(text).toMatch(/Read shot\.png · image(?: 800×600|, not shown to this model)/);
    expect(text).toContain('Read tool.bin · binary, not shown as text');
    await screenshot(page, 'window-iv-media-reads');
  });
});

describe('marks of what the agent changed, on a remote folder', () => {
  let sshd: TestSshd;
  let remote: string | undefined;
  beforeAll(async () => {
    sshd = await startTestSshd();
  });
  afterAll(async () => {
    await sshd?.dispose();
  });
  afterEach(() => {
    if (remote) rmSync(remote, { recursive: true, force: true });
  });

  // Four steps over ssh: each session there runs the person's ~/.bashrc first (pyenv's rehash here), so the bounds only guard against a hang.
  it('at 1400×900 a new file is marked added (A), a changed one modified (M), in Files and in Changes', { timeout: 240_000 }, async () => {
    remote = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-remote-')));
    writeFileSync(join(remote, 'README.md'), '# On the remote box\n');
    const serve = await session.serve({
      noFolder: true,
      extraArgs: ['--folder', sshd.folderUrl(remote)],
      settings: { rules: [{ tools: ['execute', 'write_file', 'edit_file'], decision: 'allow' }] },
      env: { DEEPDESK_SSH_COMMAND: sshd.sshCommand, DEEPDESK_REMOTE_POLL_MS: '300' },
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/src/pricing.py', content: 'PRICE = 1\n' } }] },
        { toolCalls: [{ name: 'read_file', args: { file_path: '/README.md' } }] },
        { toolCalls: [{ name: 'edit_file', args: { file_path: '/README.md', old_string: 'remote box', new_string: 'remote machine' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'cp README.md made.txt' } }] },
        { text: 'Changed the remote.' },
      ],
    });
    const page = await open(serve.url, 1400, 900);
    const files = page.getByRole('region', { name: 'Files' });
    await files.getByRole('treeitem', { name: 'README.md' }).waitFor();
    // Typed and sent with Enter: the remote folder's notice may still lie over `Send` (another part of issue 42).
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Change things there');
    await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
    await conversation(page).getByText('Changed the remote.').waitFor({ timeout: 150_000 });
    const status = (path: string) => changes(page).getByRole('listitem', { name: path }).locator('.changes-status').innerText();
    await poll(() => status('/src/pricing.py')).toBe('added');
    await poll(() => status('/made.txt')).toBe('added');
    await poll(() => status('/README.md')).toBe('modified');
    const badge = (name: string) => files.getByRole('treeitem', { name }).locator('.tree-badge');
    await files.getByRole('treeitem', { name: 'src' }).click();
    await poll(() => badge('pricing.py').innerText()).toBe('A');
    await poll(() => badge('made.txt').innerText()).toBe('A');
    await poll(() => badge('README.md').innerText()).toBe('M');
    expect(await badge('pricing.py').getAttribute('aria-label')).toBe('changed by the agent: added');
    await screenshot(page, 'window-iv-remote-change-marks');
  });
});

describe('a command with an environment prefix and the rule offered for it', () => {
  it('at 1400×900 `PYTHONPATH=src python3 -m pytest` is allowed by the rule its approval offers: the same command next time runs without asking', async () => {
    const PYTEST = 'PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider';
    const serve = await session.serve({
      script: [
        { toolCalls: [{ name: 'execute', args: { command: PYTEST } }] },
        { text: 'First run done.' },
        { toolCalls: [{ name: 'execute', args: { command: PYTEST } }] },
        { text: 'Second run done.' },
      ],
    });
    mkdirSync(join(serve.folder, 'src'));
    mkdirSync(join(serve.folder, 'tests'));
    writeFileSync(join(serve.folder, 'src', 'pricing.py'), 'def total(x):\n    return x * 2\n');
    writeFileSync(join(serve.folder, 'tests', 'test_pricing.py'), 'from pricing import total\n\ndef test_total():\n    assert total(2) == 4\n');
    const page = await open(serve.url, 1400, 900);
    await sendMessage(page, 'Run the tests');
    const group = approval(page);
    await group.waitFor({ timeout: 60_000 });
    const always = group.locator('label.always-allow');
    expect(await always.innerText()).toContain('python3 -m pytest');
    await group.getByRole('checkbox').check();
    await group.getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('First run done.').waitFor({ timeout: 60_000 });
    expect(await conversation(page).innerText()).toMatch(/1 passed/);

    await sendMessage(page, 'Run them again');
    await conversation(page).getByText('Second run done.').waitFor({ timeout: 60_000 });
    // Never asked the second time: the rule covered it.
    expect(await approval(page).count()).toBe(0);
    const results = serve.model.requests.at(-1)!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results).toHaveLength(2);
    expect(results[1]).toMatch(/1 passed/);
  });
});
