// Window VIII (issue 97), the low findings of the window at 1024×700: the Agents view's title is
// read whole; "Cost unknown" is not cut; the person's shell starts only when they ask for it, and
// the Terminal's badge says whether the command shown ran sandboxed.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { conversation, openApp, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();
const SMALL = { width: 1024, height: 700 };
const ALLOW_COMMANDS = { rules: [{ tools: ['execute'], decision: 'allow' }] };
const terminal = (page: Page) => page.getByRole('region', { name: 'Terminal' });

/** Whether the element shows all it holds: not cut by its own box, nor past its row's right edge. */
async function whole(locator: Locator): Promise<{ cut: boolean; width: number }> {
  return locator.evaluate((el) => {
    const row = el.parentElement!.closest('.panel-head, .conversation-head') ?? el.parentElement!;
    const box = el.getBoundingClientRect();
    const edge = row.getBoundingClientRect();
    return { cut: el.scrollWidth > el.clientWidth + 1 || box.right > edge.right + 1 || box.right > window.innerWidth, width: box.width };
  });
}

describe('at 1024×700', () => {
  it('the Agents view’s title is read whole beside its button', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve();
    // Notifications not yet chosen: the view's head holds its button too.
    const page = await openApp(e2e.browser, serve.url, { ...SMALL, init: () => Object.defineProperty(Notification, 'permission', { get: () => 'default' }) });
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    await agents.getByRole('button', { name: 'Turn on notifications' }).waitFor();
    const title = agents.getByRole('heading', { name: 'Agents' });
    const shown = await whole(title);
    expect(shown.cut).toBe(false);
    expect(await title.evaluate((el) => el.scrollWidth)).toBeGreaterThan(30);
    // From the column's narrowest, wider step by step: every panel's title, the same.
    const resizer = page.getByRole('separator', { name: 'Resize left panels' });
    await resizer.press('Home');
    for (let step = 0; step < 10; step++) {
      const width = await resizer.getAttribute('aria-valuenow');
      for (const heading of await page.locator('.panel-title').all()) if (await heading.isVisible()) expect((await whole(heading)).cut, `${await heading.innerText()} at ${width}`).toBe(false);
      await resizer.press('ArrowRight');
    }
  });

  it('“Cost unknown” is shown whole for a model with no price', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({ script: [{ text: 'Priced nowhere.' }] });
    const page = await openApp(e2e.browser, serve.url, SMALL);
    await sendMessage(page, 'hello');
    await conversation(page).getByText('Priced nowhere.').waitFor({ timeout: 60_000 });
    const unknown = page.locator('.conversation-head').getByText('Cost unknown');
    await unknown.waitFor({ timeout: 60_000 });
    expect(await whole(unknown)).toMatchObject({ cut: false });
    // The conversation at its narrowest (both side columns at their widest): the same.
    await page.getByRole('separator', { name: 'Resize left panels' }).press('End');
    await page.getByRole('separator', { name: 'Resize right panels' }).press('End');
    expect(await whole(unknown)).toMatchObject({ cut: false });
  });

  it('the person’s shell starts only when they ask (opening the terminal, its tab): a command that opens the terminal starts none; the badge says whether the command shown ran sandboxed', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({ settings: ALLOW_COMMANDS, script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo badge-$((6*7))' } }] }, { text: 'Ran it.' }] });
    const page = await openApp(e2e.browser, serve.url, SMALL);
    await sendMessage(page, 'Run something');
    await conversation(page).getByText('Ran it.').waitFor({ timeout: 60_000 });
    // The command opened the terminal on its own tab: no shell of the person's runs, they did not ask.
    const command = terminal(page).getByRole('tab', { name: /echo badge-/ });
    await expect.poll(() => command.getAttribute('aria-selected'), { timeout: 60_000 }).toBe('true');
    const shell = terminal(page).getByRole('tabpanel', { name: 'Your shell' });
    expect(await shell.count()).toBe(0);
    // The command shown ran as the folder's commands run: the badge says so in its words.
    const badge = terminal(page).locator('.sandbox-status');
    const machine = await badge.innerText();
    expect(machine).toMatch(/^(Sandboxed|Not sandboxed)$/);
    expect(await badge.getAttribute('title')).toBe(`This command ran ${machine === 'Sandboxed' ? 'in the sandbox' : 'outside the sandbox'}`);
    // Asked: its tab starts it.
    await terminal(page).getByRole('tab', { name: /Your shell/ }).click();
    await shell.waitFor({ timeout: 60_000 });
    await expect.poll(() => shell.locator('.xterm-rows').innerText(), { timeout: 60_000 }).toMatch(/\S/);
    await page.context().close();
  });
});

describe('the terminal’s first output', () => {
  it('output that reaches the window before the answer to its attach is shown once, after the buffer the answer brings', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve();
    const context = await e2e.browser.newContext({ viewport: { width: 1400, height: 900 } });
    // The host's answer to the shell's attach is held until the shell's first output (its prompt) has reached the page.
    const attaches = new Set<unknown>();
    let held: Array<() => void> | null = [];
    await context.routeWebSocket(/.*/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => {
        const call = typeof m === 'string' ? (JSON.parse(m) as { id?: unknown; method?: string }) : undefined;
        if (call?.method === 'terminal.attach') attaches.add(call.id);
        server.send(m);
      });
      server.onMessage((m) => {
        const frame = typeof m === 'string' ? (JSON.parse(m) as { id?: unknown; event?: string }) : undefined;
        if (held !== null && frame?.id !== undefined && attaches.has(frame.id)) {
          held.push(() => ws.send(m));
          return;
        }
        ws.send(m);
        if (held !== null && frame?.event === 'terminal.data') {
          for (const answer of held.splice(0)) answer();
          held = null;
        }
      });
    });
    const page = await context.newPage();
    await page.goto(serve.url);
    const message = page.getByRole('textbox', { name: 'Message', exact: true });
    await message.focus();
    await page.keyboard.press('Control+Shift+Backquote');
    const rows = terminal(page).getByRole('tabpanel', { name: 'Your shell' }).locator('.xterm-rows');
    await expect.poll(() => rows.innerText(), { timeout: 60_000 }).toMatch(/[$#]/);
    expect(held).toBeNull();
    await page.keyboard.type('echo once-$((2+3))');
    await page.keyboard.press('Enter');
    await expect.poll(() => rows.innerText(), { timeout: 60_000 }).toContain('once-5\n');
    // Shown once: the prompt before the command, not a copy of it from the buffer and the early output both.
    expect((await rows.innerText()).match(/echo once-/g)).toHaveLength(1);
    await context.close();
  });
});
