// Screenshots of the window as a person first sees it at work (headless Chromium against
// `deepdesk serve` and the scripted model): a folder with a few files, a thread with an
// answer and its tool-call cards, and an edit waiting for approval; and Settings. At
// 1400×900 and 1024×700, light and dark (prefers-color-scheme, which the default theme
// setting follows), into test-results/screenshots/. With UPDATE_DOCS_SCREENSHOT=1 the
// 1400×900 light window is also written to docs/images/window.png (the README's picture);
// otherwise that committed file is left alone, so it changes only when asked to.

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { approval, conversation, repo, screenshotDir, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();

const SIZES = [
  [1400, 900],
  [1024, 700],
] as const;
const THEMES = ['light', 'dark'] as const;

const FILES: Record<string, string> = {
  'README.md': '# pricing\n\nPrices, discounts and invoice totals.\n',
  'pyproject.toml': '[project]\nname = "pricing"\nversion = "0.3.0"\n',
  'src/pricing/__init__.py': 'from .invoice import invoice_total\n',
  'src/pricing/invoice.py': [
    'from decimal import Decimal, ROUND_HALF_UP',
    '',
    '',
    'def line_total(price: Decimal, quantity: int) -> Decimal:',
    '    return (price * quantity).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)',
    '',
    '',
    'def invoice_total(lines: list[tuple[Decimal, int]], discount: Decimal) -> Decimal:',
    '    total = sum(line_total(p, q) for p, q in lines)',
    '    return total - total * discount',
    '',
  ].join('\n'),
  'tests/test_invoice.py': 'from decimal import Decimal\n\nfrom pricing import invoice_total\n\n\ndef test_total():\n    assert invoice_total([(Decimal("1.005"), 3)], Decimal("0")) == Decimal("3.02")\n',
};

const ANSWER = [
  'The discount is applied **after** each line was rounded, and the result is never rounded again:',
  '',
  '- `line_total()` rounds every line to cents;',
  '- `invoice_total()` subtracts `total * discount`, which can leave a third decimal.',
  '',
  'So a 15% discount on 10.05 gives `8.5425`. Rounding the discounted total to cents fixes it.',
].join('\n');

function writeProject(folder: string): void {
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(join(folder, path, '..'), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
}

/** A page on the window at this size and colour scheme, its theme applied. */
async function openWindow(url: string, width: number, height: number, theme: (typeof THEMES)[number]): Promise<Page> {
  const context = await e2e.browser.newContext({ viewport: { width, height }, colorScheme: theme, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.on('pageerror', (err) => {
    throw err;
  });
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
  return page;
}

async function shoot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

describe('screenshots', () => {
  it('of the window at work and of Settings, at 1400×900 and 1024×700, light and dark', { timeout: 240_000 }, async () => {
    // Named as a person's project is (the header shows the folder's name).
    const parent = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-shots-'));
    onTestFinished(() => rmSync(parent, { recursive: true, force: true }));
    const folder = join(parent, 'pricing');
    writeProject(folder);
    const serve = await e2e.serve({
      folder,
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/src/pricing/invoice.py' } }] },
        { toolCalls: [{ name: 'grep', args: { pattern: 'invoice_total', path: '/' } }] },
        { text: ANSWER },
        {
          toolCalls: [
            {
              name: 'edit_file',
              args: { file_path: '/src/pricing/invoice.py', old_string: '    return total - total * discount\n', new_string: '    return (total - total * discount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)\n' },
            },
          ],
        },
        { text: 'Fixed: the discounted total is rounded to cents.' },
      ],
    });

    // The state, made once as a person makes it: a question answered, then a fix asked for.
    const page = await openWindow(serve.url, 1400, 900, 'light');
    await sendMessage(page, 'Why is the invoice total sometimes off by a cent?');
    await conversation(page).getByText('Rounding the discounted total to cents fixes it.').waitFor();
    await expect.poll(() => toolCard(page, 'read_file').count()).toBeGreaterThan(0);
    await sendMessage(page, 'Fix it, please.');
    await approval(page).first().waitFor();
    await page.context().close();

    const written: string[] = [];
    for (const [width, height] of SIZES) {
      for (const theme of THEMES) {
        const shot = await openWindow(serve.url, width, height, theme);
        await approval(shot).first().waitFor();
        await shot.getByRole('treeitem', { name: /src/ }).first().waitFor();
        await conversation(shot).getByText('Rounding the discounted total to cents fixes it.').waitFor();
        const window = await shoot(shot, `window-${width}x${height}-${theme}`);
        written.push(window);
        if (width === 1400 && theme === 'light' && process.env.UPDATE_DOCS_SCREENSHOT === '1') copyFileSync(window, join(repo, 'docs/images/window.png'));

        await shot.getByRole('button', { name: 'Settings', exact: true }).click();
        await shot.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Save settings' }).waitFor();
        written.push(await shoot(shot, `settings-${width}x${height}-${theme}`));
        await shot.context().close();
      }
    }
    for (const file of written) expect(statSync(file).size, file).toBeGreaterThan(10_000);
    expect(written.map((f) => f.slice(screenshotDir.length + 1)).sort()).toEqual([
      'settings-1024x700-dark.png',
      'settings-1024x700-light.png',
      'settings-1400x900-dark.png',
      'settings-1400x900-light.png',
      'window-1024x700-dark.png',
      'window-1024x700-light.png',
      'window-1400x900-dark.png',
      'window-1400x900-light.png',
    ]);
  });
});
